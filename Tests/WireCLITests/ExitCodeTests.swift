// ExitCodeTests: thrown errors become curl's exit codes and one `wire: error:` line.

import HTTPWire
import Testing

@testable import wire

@Suite struct ExitCodeTests {
    static let libraryErrors: [HTTPWireError] = [
        .invalidURL("no host in \"http:///\""), .couldNotResolveHost("nowhere.test"),
        .couldNotConnect(host: "127.0.0.1", port: 9, errno: 111), .bodyTruncated(expected: 10, received: 4),
        .httpStatus(404), .localWriteFailed(path: "/x", errno: 28), .timedOut(.total), .tooManyRedirects(limit: 10),
        .emptyReply, .peerCertificateRejected("self-signed certificate"),
    ]

    @Test("an HTTPWireError exits with the library's own code and prints its description", arguments: libraryErrors)
    func libraryError(error: HTTPWireError) {
        #expect(ExitCode(for: error).rawValue == error.exitCode)
        #expect(ExitCode.errorText(for: error) == "wire: error: \(error.description)\n")
    }

    @Test("the codes scripts rely on: no host 6, refused 7, --fail 22, timeout 28")
    func knownCodes() {
        #expect(ExitCode(for: HTTPWireError.couldNotResolveHost("x")).rawValue == 6)
        #expect(ExitCode(for: HTTPWireError.couldNotConnect(host: "x", port: 1, errno: 111)).rawValue == 7)
        #expect(ExitCode(for: HTTPWireError.httpStatus(500)).rawValue == 22)
        #expect(ExitCode(for: HTTPWireError.timedOut(.connect)).rawValue == 28)
    }

    @Test("a usage mistake exits 2 with a hint naming the command's help, unless help cannot fix it")
    func usage() {
        let error = UsageError(message: "option -o needs a value", command: .get)
        #expect(ExitCode(for: error) == .usage)
        #expect(ExitCode.usage.rawValue == 2)
        #expect(
            ExitCode.errorText(for: error)
                == "wire: error: option -o needs a value\nwire: try 'wire get --help' for more information\n")
        #expect(
            ExitCode.errorText(for: UsageError(message: "x", command: nil)).hasSuffix(
                "try 'wire --help' for more information\n"))
        #expect(ExitCode.errorText(for: UsageError(message: "x", suggestsHelp: false)) == "wire: error: x\n")
    }

    @Test("cancellation (Ctrl-C) exits 130; anything else exits 1")
    func cancellationAndOthers() {
        struct Unexpected: Error {}
        #expect(ExitCode(for: CancellationError()).rawValue == 130)
        #expect(ExitCode.errorText(for: CancellationError()) == "wire: error: interrupted\n")
        #expect(ExitCode(for: Unexpected()) == .failure)
        #expect(ExitCode.failure.rawValue == 1)
    }
}

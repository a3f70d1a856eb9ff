// Arguments: the libFuzzer target for wire's command-line parser.
// Test tooling for the edge layer (the CLI), built by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// Arguments.swift lives in the `wire` executable, which links the whole library. The parser itself needs
// only its neighbours (the parsed command, the option table and the `-w` format it checks), and of the library
// only the two value types they name (PublicKeyPin, RequestMetrics), so this target builds partial `HTTPWire`
// and `wire` modules from those files (see ContentDisposition.swift here for the idea).
//
// An input is a command line, its words separated by NUL bytes (what a process really receives). A word
// list is untrusted in the sense that matters for a CLI: scripts build it from file names and server
// output. Parsing never traps; a mistake is a UsageError whose message is one non-empty line (wire prints it
// after `wire: error: `); a parsed command has its numbers inside the ranges the options promise: timeouts
// positive and finite, at least one parallel transfer, non-negative retries and redirects, a port 0–65535.
//
// fuzz-module: HTTPWireCodec
// fuzz-module: HTTPWire Sources/HTTPWire/Client/PublicKeyPin.swift Sources/HTTPWire/Client/RequestMetrics.swift
// fuzz-module: wire Sources/wire/Arguments.swift Sources/wire/OptionValues.swift Sources/wire/ParsedCommand.swift Sources/wire/CommandOption.swift Sources/wire/WriteOut.swift
// fuzz-seeds: Fixtures/fuzz/Arguments
// fuzz-max-len: 256

@testable import wire

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let words = input.bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    let invocation: Invocation
    do throws(UsageError) {
        invocation = try Arguments.parse(words)
    } catch {
        FuzzCheck.expect(
            !error.message.isEmpty && !error.message.utf8.contains(0x0A) && !error.message.utf8.contains(0x0D),
            "\(words): the usage error \(error.message.debugDescription) is not one line")
        return 0
    }
    guard case .run(let command) = invocation else { return 0 }
    func expect(_ condition: Bool, _ what: String) {
        FuzzCheck.expect(condition, "\(words): \(what) out of range in \(command)")
    }
    for timeout in [command.timeoutSeconds, command.connectTimeoutSeconds].compactMap({ $0 }) {
        expect(timeout > 0 && timeout.isFinite, "a timeout")
    }
    expect(command.parallel >= 1, "--parallel")
    expect(command.retries >= 0, "--retry")
    expect(command.maxRedirects >= 0, "--max-redirects")
    expect((0...65535).contains(command.port), "--port")
    return 0
}

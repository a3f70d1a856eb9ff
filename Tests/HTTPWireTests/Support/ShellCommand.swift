// ShellCommand: runs a program and returns its standard output, waiting on a dispatch thread so that no
// thread of the cooperative pool is blocked (test support). Used to start the loopback proxies and to
// compute public-key pins with the openssl tool, independently of the code under test.

import Foundation

/// Runs child processes off the cooperative pool.
enum ShellCommand {
    /// A failed run: the program and its exit status.
    struct Failure: Error, CustomStringConvertible {
        let command: String
        let status: Int32
        var description: String { "\(command) exited \(status)" }
    }

    /// Runs `executable` with `arguments`; returns stdout, throws `Failure` on a non-zero exit.
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    let name = ([executable] + arguments.prefix(2)).joined(separator: " ")
                    continuation.resume(throwing: Failure(command: name, status: process.terminationStatus))
                    return
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// The curl-spelled pin (`sha256//BASE64`) of the public key in the PEM certificate at `path`,
    /// computed by the openssl tool.
    static func pin(ofCertificate path: String) async throws -> String {
        let script =
            "openssl x509 -in '\(path)' -pubkey -noout | openssl pkey -pubin -outform der"
            + " | openssl dgst -sha256 -binary | base64"
        let output = try await run("/bin/sh", ["-c", script])
        return "sha256//" + output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

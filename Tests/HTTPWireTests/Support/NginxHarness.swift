// NginxHarness: nginx on loopback for interop tests, started with Fixtures/nginx/nginx-loopback.sh.
// `make test` installs nginx-light; each harness has its own prefix directory, ports, pid and logs.

import Foundation
import Testing

/// A running nginx serving `root/www` on 127.0.0.1 (plain, and TLS when a certificate is given).
final class NginxHarness: @unchecked Sendable {
    let directory: String
    let plainPort: Int
    let tlsPort: Int

    static let repositoryRoot: String = {
        let file = URL(fileURLWithPath: #filePath)
        return file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    /// Starts nginx; `files` are written under www/ first.
    init(files: [String: [UInt8]] = [:], certificate: String? = nil, key: String? = nil) throws {
        directory = NSTemporaryDirectory() + "httpwire-nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/www", withIntermediateDirectories: true)
        for (name, bytes) in files {
            let path = directory + "/www/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        var arguments = ["start", directory]
        if let certificate, let key { arguments += [certificate, key] }
        let output = try Self.runScript(arguments)
        let ports = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard ports.count == 2 else { throw HarnessError(message: "nginx-loopback.sh printed \(output)") }
        plainPort = ports[0]
        tlsPort = ports[1]
    }

    var baseURL: String { "http://127.0.0.1:\(plainPort)/" }
    var tlsBaseURL: String { "https://127.0.0.1:\(tlsPort)/" }

    func stop() {
        _ = try? Self.runScript(["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    struct HarnessError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private static func runScript(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repositoryRoot + "/Fixtures/nginx/nginx-loopback.sh"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError(
                message: "nginx-loopback.sh \(arguments.first ?? "") exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

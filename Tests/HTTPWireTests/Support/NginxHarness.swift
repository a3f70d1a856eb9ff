// NginxHarness: nginx on loopback for interop tests, started with Fixtures/nginx/nginx-loopback.sh.
// `make test` installs nginx-light; each harness has its own prefix directory, ports, pid and logs.
// The script runs through Subprocess (off the cooperative pool), and `withNginx` stops nginx whether the
// test body returns or throws. The script picks its ports by binding port 0 and closing the socket, so
// another process may take one before nginx binds it: a start that fails is tried again with new ports.

import Foundation
import TestSupport
import Testing

/// A running nginx serving `root/www` on 127.0.0.1 (plain, and TLS when a certificate is given).
final class NginxHarness: Sendable {
    let directory: String
    let plainPort: Int
    let tlsPort: Int

    static let repositoryRoot: String = {
        let file = URL(fileURLWithPath: #filePath)
        return file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    /// How many times a start is tried before the test fails: each try has fresh ports.
    static let startAttempts = 3

    private init(directory: String, plainPort: Int, tlsPort: Int) {
        self.directory = directory
        self.plainPort = plainPort
        self.tlsPort = tlsPort
    }

    /// Starts nginx; `files` are written under www/ first.
    static func start(files: [String: [UInt8]] = [:], certificate: String? = nil, key: String? = nil)
        async throws -> NginxHarness
    {
        let directory = NSTemporaryDirectory() + "httpwire-nginx-\(UUID().uuidString)"
        try await DedicatedThread.run {
            try FileManager.default.createDirectory(atPath: directory + "/www", withIntermediateDirectories: true)
            for (name, bytes) in files {
                let path = directory + "/www/" + name
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(bytes).write(to: URL(fileURLWithPath: path))
            }
        }
        var arguments = ["start", directory]
        if let certificate, let key { arguments += [certificate, key] }
        var failure = ""
        for _ in 0..<startAttempts {
            let result = try await runScript(arguments)
            guard result.status == 0 else {
                failure = "nginx-loopback.sh start exited \(result.status): \(result.errorText)"
                continue
            }
            let ports = result.outputText.split(separator: " ").compactMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            guard ports.count == 2 else {
                throw HarnessError(message: "nginx-loopback.sh printed \(result.outputText)")
            }
            return NginxHarness(directory: directory, plainPort: ports[0], tlsPort: ports[1])
        }
        try? await DedicatedThread.run { try FileManager.default.removeItem(atPath: directory) }
        throw HarnessError(message: failure)
    }

    var baseURL: String { "http://127.0.0.1:\(plainPort)/" }
    var tlsBaseURL: String { "https://127.0.0.1:\(tlsPort)/" }
    /// The plain server's Unix-domain socket file (`listen unix:` in the script's configuration).
    var unixSocketPath: String { directory + "/nginx.sock" }

    /// Stops nginx and removes its directory.
    func stop() async {
        _ = try? await Self.runScript(["stop", directory])
        let directory = self.directory
        try? await DedicatedThread.run { try FileManager.default.removeItem(atPath: directory) }
    }

    struct HarnessError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private static func runScript(_ arguments: [String]) async throws -> Subprocess.Result {
        try await Subprocess.run("/bin/bash", [repositoryRoot + "/Fixtures/nginx/nginx-loopback.sh"] + arguments)
    }
}

/// Starts nginx with `files`, runs `body` with it, and stops it whether `body` returns or throws.
func withNginx<Result>(
    files: [String: [UInt8]] = [:], certificate: String? = nil, key: String? = nil,
    _ body: (NginxHarness) async throws -> Result
) async throws -> Result {
    let nginx = try await NginxHarness.start(files: files, certificate: certificate, key: key)
    do {
        let result = try await body(nginx)
        await nginx.stop()
        return result
    } catch {
        await nginx.stop()
        throw error
    }
}

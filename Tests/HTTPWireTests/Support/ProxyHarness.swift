// ProxyHarness: tinyproxy or dante on loopback for the proxy tests, started by
// Fixtures/proxies/proxy-loopback.sh with a configuration, pid and log file of its own in a temporary
// directory (test support). Starting and stopping wait for the script on a dispatch thread, never on the
// cooperative pool, which the fixture servers of concurrently running tests need.

import Foundation
import Testing

/// A running real proxy.
final class ProxyHarness: Sendable {
    /// Which program.
    enum Kind: String, Sendable {
        /// tinyproxy: an HTTP proxy that forwards absolute-form requests and opens CONNECT tunnels.
        case tinyproxy
        /// dante: a SOCKS5 server.
        case dante
    }

    let kind: Kind
    let directory: String
    let port: Int

    private init(kind: Kind, directory: String, port: Int) {
        self.kind = kind
        self.directory = directory
        self.port = port
    }

    /// Starts `kind`; `options` are the script's extra arguments (tinyproxy: USER PASSWORD for Basic auth;
    /// dante: "username" to require RFC 1929).
    static func start(_ kind: Kind, options: [String] = []) async throws -> ProxyHarness {
        let directory = NSTemporaryDirectory() + "httpwire-\(kind.rawValue)-\(UUID().uuidString)"
        let output = try await ShellCommand.run(
            "/bin/bash", [script, "start", kind.rawValue, directory] + options)
        let port = try #require(Int(output.trimmingCharacters(in: .whitespacesAndNewlines)), "script printed \(output)")
        return ProxyHarness(kind: kind, directory: directory, port: port)
    }

    /// Stops the proxy and removes its directory.
    func stop() async {
        _ = try? await ShellCommand.run("/bin/bash", [Self.script, "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The proxy URL: `http://127.0.0.1:PORT` or `socks5h://127.0.0.1:PORT` (`scheme` overrides).
    func url(scheme: String? = nil, credentials: String? = nil) -> String {
        let defaultScheme = kind == .tinyproxy ? "http" : "socks5h"
        return "\(scheme ?? defaultScheme)://\(credentials.map { $0 + "@" } ?? "")127.0.0.1:\(port)"
    }

    /// The proxy's log so far.
    var log: String {
        (try? String(contentsOfFile: directory + "/proxy.log", encoding: .utf8)) ?? ""
    }

    private static let script: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Fixtures/proxies/proxy-loopback.sh"
            ).path
    }()
}

/// Runs `body` with a started proxy, stopping it however `body` ends.
func withProxy<T>(
    _ kind: ProxyHarness.Kind, options: [String] = [], isolation: isolated (any Actor)? = #isolation,
    _ body: (ProxyHarness) async throws -> T
) async throws -> T {
    let proxy = try await ProxyHarness.start(kind, options: options)
    do {
        let result = try await body(proxy)
        await proxy.stop()
        return result
    } catch {
        await proxy.stop()
        throw error
    }
}

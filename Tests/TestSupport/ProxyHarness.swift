// ProxyHarness: tinyproxy or dante on loopback for the proxy tests (test support, shared by HTTPWireTests
// and WireCLITests), started by Fixtures/proxies/proxy-loopback.sh with a configuration, pid and log file
// of its own in a temporary directory. Starting and stopping run the script as a Subprocess, so no thread
// of the cooperative pool waits for it. This file knows the script's arguments, not the proxies' protocols.

import Foundation
import Testing

/// A running real proxy.
///
/// ```swift
/// try await withProxy(.tinyproxy) { proxy in
///     configuration.proxy = ProxyConfiguration(allProxy: proxy.url())   // http://127.0.0.1:PORT
///     ...
///     #expect(proxy.log.contains("GET http://"))
/// }
/// ```
public final class ProxyHarness: Sendable {
    /// Which program.
    public enum Kind: String, Sendable {
        /// tinyproxy: an HTTP proxy that forwards absolute-form requests and opens CONNECT tunnels.
        case tinyproxy
        /// dante: a SOCKS5 server.
        case dante
    }

    /// The program running.
    public let kind: Kind
    /// Its temporary directory: proxy.conf, proxy.pid, proxy.log.
    public let directory: String
    /// The loopback port it listens on.
    public let port: Int

    private init(kind: Kind, directory: String, port: Int) {
        self.kind = kind
        self.directory = directory
        self.port = port
    }

    /// Starts `kind`; `options` are the script's extra arguments (tinyproxy: USER PASSWORD for Basic auth;
    /// dante: "username" to require RFC 1929).
    public static func start(_ kind: Kind, options: [String] = []) async throws -> ProxyHarness {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpwire-\(kind.rawValue)-\(UUID().uuidString)").path
        let result = try await Subprocess.run("/bin/bash", [script, "start", kind.rawValue, directory] + options)
        try #require(result.status == 0, "proxy-loopback.sh start \(kind.rawValue): \(result.errorText)")
        let port = try #require(
            Int(result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)),
            "proxy-loopback.sh printed \(result.outputText)")
        return ProxyHarness(kind: kind, directory: directory, port: port)
    }

    /// Stops the proxy and removes its directory.
    public func stop() async {
        _ = try? await Subprocess.run("/bin/bash", [Self.script, "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The proxy URL: `http://127.0.0.1:PORT` or `socks5h://127.0.0.1:PORT` (`scheme` overrides), with
    /// `credentials` ("user:password") when given.
    public func url(scheme: String? = nil, credentials: String? = nil) -> String {
        let defaultScheme = kind == .tinyproxy ? "http" : "socks5h"
        return "\(scheme ?? defaultScheme)://\(credentials.map { $0 + "@" } ?? "")127.0.0.1:\(port)"
    }

    /// The proxy's log so far (tinyproxy logs each request line, dante each connect).
    public var log: String {
        (try? String(contentsOfFile: directory + "/proxy.log", encoding: .utf8)) ?? ""
    }

    private static let script: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/proxies/proxy-loopback.sh").path
    }()

    /// The curl-spelled pin (`sha256//BASE64`) of the public key in the PEM certificate at `path`, computed
    /// by the openssl tool — independently of the code under test.
    public static func pin(ofCertificate path: String) async throws -> String {
        let script =
            "openssl x509 -in '\(path)' -pubkey -noout | openssl pkey -pubin -outform der"
            + " | openssl dgst -sha256 -binary | base64"
        let result = try await Subprocess.run("/bin/sh", ["-c", script])
        try #require(result.status == 0, "openssl: \(result.errorText)")
        return "sha256//" + result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Runs `body` with a started proxy, stopping it however `body` ends.
public func withProxy<T>(
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

// HttpbinHarness: httpbin, the PyPI package, on loopback for the interop tests (test support, shared by
// HTTPWireTests and WireCLITests): a real server written by other people, for the parts of HTTP where our own
// fixture server would only agree with our own reading of the RFC — cookies (/cookies, /cookies/set,
// /cookies/delete), content codings (/gzip, /deflate), echoes of what was sent (/get, /post, /headers).
// Fixtures/httpbin/httpbin-loopback.sh starts it from the virtual environment `make deps` makes, on a port the
// kernel chose; starting and stopping run the script as a Subprocess, so no thread of the cooperative pool
// waits for it. This file knows the script's arguments, not httpbin's endpoints.

import Foundation
import Testing

/// A running httpbin.
///
/// ```swift
/// try await withHttpbin { base in            // "http://127.0.0.1:PORT"
///     let response = try await client.get(base + "/cookies/set?flavour=oat")
///     ...
/// }
/// ```
///
/// httpbin answers with `Connection: close` (Werkzeug's development server), so each request opens its own
/// connection. One httpbin starts per call (about half a second on a quiet machine).
public final class HttpbinHarness: Sendable {
    /// Its temporary directory: httpbin.pid, port, httpbin.log.
    public let directory: String
    /// The loopback port it listens on.
    public let port: Int

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var base: String { "http://127.0.0.1:\(port)" }

    private init(directory: String, port: Int) {
        self.directory = directory
        self.port = port
    }

    /// Starts httpbin; fails (a recorded issue) when `make deps` has not made its environment.
    public static func start() async throws -> HttpbinHarness {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpwire-httpbin-\(UUID().uuidString)").path
        let result = try await Subprocess.run("/bin/bash", [script, "start", directory])
        try #require(result.status == 0, "httpbin-loopback.sh start: \(result.errorText)")
        let port = try #require(
            Int(result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)),
            "httpbin-loopback.sh printed \(result.outputText)")
        return HttpbinHarness(directory: directory, port: port)
    }

    /// Stops httpbin and removes its directory.
    public func stop() async {
        _ = try? await Subprocess.run("/bin/bash", [Self.script, "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// httpbin's log so far (Werkzeug logs each request line).
    public var log: String {
        (try? String(contentsOfFile: directory + "/httpbin.log", encoding: .utf8)) ?? ""
    }

    private static let script: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/httpbin/httpbin-loopback.sh").path
    }()
}

/// Runs `body` with a started httpbin's base URL (`http://127.0.0.1:PORT`), stopping it however `body` ends.
public func withHttpbin<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
) async throws -> T {
    let httpbin = try await HttpbinHarness.start()
    do {
        let result = try await body(httpbin.base)
        await httpbin.stop()
        return result
    } catch {
        await httpbin.stop()
        throw error
    }
}

// DocsSiteTests: the built DocC site renders in a real browser (docs test). `make docs` builds the site,
// then runs this suite with HTTPWIRE_DOCS_SITE set to the archive; the suite serves it over loopback HTTP
// (DocC's pages load their content with fetch, which file:// URLs refuse), opens the landing page and
// "Life of a request" with headless Chromium (`chromium --headless --dump-dom`, Debian's chromium, installed
// by `make deps`) and checks the DOM the page's JavaScript built: its title and a diagram. So a site that
// builds but shows a blank page fails `make docs`, and with it `make test`. Without the variable (a plain
// `swift test`, which runs before the site exists), or without /usr/bin/chromium, the suite is skipped.
// Nothing can hang it: Chromium runs under coreutils' `timeout` (killed after `browserSeconds`), and the
// static server is terminated if it has not said its port within `serverStartSeconds`.
//
// The server is Python's http.server: DocC's static site expects to be at the root of its host, and the
// fixture server serves directories under /files/ only. Every wait runs off the cooperative pool (a process's
// end is a termination handler, its first line a readability handler).

import Foundation
import Testing

/// The built archive, when `make docs` runs the suite.
private let builtSite = ProcessInfo.processInfo.environment["HTTPWIRE_DOCS_SITE"]

@Suite(
    .enabled(if: builtSite != nil, "run by make docs, with HTTPWIRE_DOCS_SITE set"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium is not installed"))
struct DocsSiteTests {
    static let site = builtSite

    /// How long one page may take in the browser before it is killed (it normally takes a few seconds; the
    /// virtual time budget below lets the page's scripts run for 15 s of page time).
    static let browserSeconds = 60
    /// How long the static server may take to say its port.
    static let serverStartSeconds = 30

    /// The page at `path` as Chromium's DOM after its scripts ran.
    static func dumpDOM(port: Int, path: String) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("docs-site-\(UUID()).html")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = [
            "--kill-after=5", String(browserSeconds), "/usr/bin/chromium", "--headless", "--no-sandbox",
            "--disable-gpu", "--disable-dev-shm-usage", "--virtual-time-budget=15000",
            "--dump-dom", "http://127.0.0.1:\(port)\(path)",
        ]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        let status = try await run(process)
        // 124 and 137: timeout(1) stopped a browser that did not finish.
        #expect(status == 0, "chromium exited \(status) for \(path) (124 or 137: killed after \(browserSeconds) s)")
        return try String(contentsOf: output, encoding: .utf8)
    }

    /// Runs `process` to its end without blocking a thread.
    static func run(_ process: Process) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
    }

    /// Starts a static HTTP server for `directory` on a free loopback port; returns it and the port.
    static func startServer(directory: String) async throws -> (Process, Int) {
        let script = """
            import functools, http.server, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            print(server.server_port, flush=True)
            server.serve_forever()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, directory]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let line = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, Error>) in
            let buffer = LockedText()
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if let line = buffer.append(data, ended: data.isEmpty) {
                    handle.readabilityHandler = nil
                    continuation.resume(returning: line)
                }
            }
            do { try process.run() } catch {
                pipe.fileHandleForReading.readabilityHandler = nil
                continuation.resume(throwing: error)
                return
            }
            // A server that never says its port is stopped; its stdout then ends and the handler above
            // resumes with what it had.
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(serverStartSeconds)) {
                if process.isRunning && !buffer.isFinished { process.terminate() }
            }
        }
        let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "server said \(line)")
        return (process, port)
    }

    /// Collects bytes until the first line is complete (or the stream ended), once.
    final class LockedText: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        private var isDone = false

        /// Whether the first line was already handed out.
        var isFinished: Bool {
            lock.lock()
            defer { lock.unlock() }
            return isDone
        }

        func append(_ data: Data, ended: Bool) -> String? {
            lock.lock()
            defer { lock.unlock() }
            guard !isDone else { return nil }
            text += String(decoding: data, as: UTF8.self)
            guard ended || text.contains("\n") else { return nil }
            isDone = true
            return text
        }
    }

    @Test("the landing page and Life of a request render with their titles and diagrams", .timeLimit(.minutes(2)))
    func pagesRender() async throws {
        let site = try #require(Self.site)
        try #require(FileManager.default.fileExists(atPath: site + "/index.html"), "no site at \(site)")
        let (server, port) = try await Self.startServer(directory: site)
        defer { server.terminate() }
        let pages = [
            ("/documentation/httpwire/", "HTTPWire", "layers.svg"),
            ("/documentation/httpwire/lifeofarequest", "Life of a request", "exchange-states.svg"),
        ]
        for (path, title, diagram) in pages {
            let dom = try await Self.dumpDOM(port: port, path: path)
            // The title is rendered by the page's scripts into <h1 class="title">; the noscript fallback says
            // "This page requires JavaScript", so finding the title proves the scripts ran.
            #expect(
                dom.range(of: #"<h1[^>]*class="title"[^>]*>(<[^>]*>)*\s*\#(title)\s*<"#, options: .regularExpression)
                    != nil,
                "\(path): no rendered title \(title)")
            #expect(
                dom.range(of: #"<img[^>]*src="[^"]*\#(diagram)""#, options: .regularExpression) != nil,
                "\(path): the diagram \(diagram) is not in the page")
        }
    }
}

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
// fixture server serves directories under /files/ only. Both children are TestSupport's `Subprocess`, which
// waits off the cooperative pool and kills its child if the test is cancelled.

import Foundation
import TestSupport
import Testing

/// The built archive, when `make docs` runs the suite.
private let builtSite = ProcessInfo.processInfo.environment["HTTPWIRE_DOCS_SITE"]

@Suite(
    .enabled(if: builtSite != nil, "run by make docs, with HTTPWIRE_DOCS_SITE set"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium is not installed"))
struct DocsSiteTests {
    static let site = builtSite

    /// How long one page may take in the browser before coreutils' timeout kills it (it normally takes a few
    /// seconds; the virtual time budget lets the page's scripts run for 15 s of page time). Scaled.
    static var browserSeconds: Int { Int(Double(60) * TestTime.scale) }
    /// How long the static server may take to say its port.
    static let serverStart = Duration.seconds(30)

    /// The page at `path` as Chromium's DOM after its scripts ran.
    static func dumpDOM(port: Int, path: String) async throws -> String {
        let result = try await Subprocess.run(
            "/usr/bin/timeout",
            [
                "--kill-after=5", String(browserSeconds), "/usr/bin/chromium", "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--virtual-time-budget=15000", "--dump-dom",
                "http://127.0.0.1:\(port)\(path)",
            ])
        // 124 and 137: timeout(1) stopped a browser that did not finish.
        #expect(
            result.status == 0,
            "chromium exited \(result.status) for \(path) (124 or 137: killed after \(browserSeconds) s)")
        return result.outputText
    }

    /// Starts a static HTTP server for `directory` on a free loopback port; returns it and the port.
    static func startServer(directory: String) async throws -> (Subprocess, Int) {
        let script = """
            import functools, http.server, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            print(server.server_port, flush=True)
            server.serve_forever()
            """
        let server = try await Subprocess.start("/usr/bin/env", ["python3", "-c", script, directory])
        var line = ""
        let said = await eventually(within: serverStart) {
            line = String(decoding: await server.outputSoFar(), as: UTF8.self)
            return line.contains("\n")
        }
        guard said, let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            server.send(SIGKILL)
            let result = try await server.finish()
            Issue.record("the static server did not say its port: \(line) \(result.errorText)")
            throw CancellationError()
        }
        return (server, port)
    }

    @Test("the landing page and Life of a request render with their titles and diagrams", .timeLimit(.scaledMinutes(3)))
    func pagesRender() async throws {
        let site = try #require(Self.site)
        try #require(FileManager.default.fileExists(atPath: site + "/index.html"), "no site at \(site)")
        let (server, port) = try await Self.startServer(directory: site)
        let pages: [(path: String, title: String, diagram: String)] = [
            ("/documentation/httpwire/", "HTTPWire", "layers.svg"),
            ("/documentation/httpwire/lifeofarequest", "Life of a request", "exchange-states.svg"),
        ]
        // The server is stopped whatever happens to the pages.
        var failure: (any Error)?
        do {
            try await Self.expectRendered(pages, port: port)
        } catch {
            failure = error
        }
        // SIGKILL, not SIGTERM: on this machine Python's server once ran on after SIGTERM (inherited signal
        // state, most likely), and the wait for it hit the time limit.
        server.send(SIGKILL)
        _ = try await server.finish()
        if let failure { throw failure }
    }

    /// Opens each page and checks its rendered title and its diagram.
    static func expectRendered(_ pages: [(path: String, title: String, diagram: String)], port: Int) async throws {
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

// WireEverydayFlagsTests: the curl flags people type without thinking — short options in one word (-fsSL,
// -sSo FILE, -XPATCH), -s/-S, -k, -A, -e, --retry on every request command, --data-binary, --data-raw, -T,
// -O, --resolve, --unix-socket, --fail-with-body, -#, --http1.1, --create-dirs, -D, -F on post and put, and -w after a failure with %{exitcode} and %{errormsg}, %{remote_ip}/%{remote_port}, --max-filesize, -Z, -r and --oauth2-bearer — parsed in-process, then run
// as a user runs them against a fixture server in this process, checking what the server received and what
// wire printed.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

@testable import wire

@Suite struct WireEverydayFlagsTests {
    @Test("short options cluster as in curl: each letter an option, the first taking a value takes the rest")
    func clusters() throws {
        let fsSL = try parsedCommand(["get", "-fsSL", "u"])
        #expect(fsSL.fail && fsSL.silent && fsSL.showError)
        #expect(fsSL.progress == false, "-s turns the bar off")
        #expect(fsSL.urls == ["u"])
        let output = try parsedCommand(["get", "-sSo", "out.bin", "u"])
        #expect(output.output == "out.bin" && output.urls == ["u"])
        #expect(try parsedCommand(["get", "-oout.bin", "u"]).output == "out.bin")
        #expect(try parsedCommand(["post", "-XPATCH", "u"]).method == "PATCH")
        #expect(
            try parsedCommand(["get", "-HX-Probe: 1", "u"]).headers == [HeaderArgument(name: "X-Probe", value: "1")])
        #expect(try parsedCommand(["get", "-kv", "u"]).insecure == true)
        // -i is --include for get and --input-file (with a value) for download.
        #expect(try parsedCommand(["get", "-si", "u"]).include == true)
        #expect(try parsedCommand(["download", "-si", "list.txt"]).inputFile == "list.txt")
        // --progress wins over -s; -s alone leaves the exit code and -w alone.
        #expect(try parsedCommand(["get", "-s", "--progress", "u"]).progress == true)

        #expect(usageMessage(["get", "-fzL", "u"]) == "unknown option -z in -fzL")
        #expect(usageMessage(["get", "u", "-sSo"]) == "option -o needs a value")
        #expect(usageMessage(["get", "-sF", "a=b", "u"]) == "option -F does not apply to wire get")
        #expect(usageMessage(["get", "-q", "u"]) == "unknown option -q")
    }

    @Test("-A, -e, -k and --retry reach the client's configuration")
    func configuration() throws {
        let plain = ClientSettings.configuration(for: try parsedCommand(["get", "u"]))
        #expect(plain.defaultFields["User-Agent"]?.hasPrefix("wire/") == true)
        #expect(plain.defaultFields["Referer"] == nil)
        #expect(plain.tls.verifiesPeer)
        #expect(plain.retry == .none)

        let set = ClientSettings.configuration(
            for: try parsedCommand(["get", "-A", "probe/1", "-e", "https://from.test/", "-k", "--retry", "2", "u"]))
        #expect(set.defaultFields["User-Agent"] == "probe/1")
        #expect(set.defaultFields["Referer"] == "https://from.test/")
        #expect(!set.tls.verifiesPeer)
        #expect(set.retry.maxRetries == 2)
        #expect(set.retry.retryableStatuses == [408, 429, 500, 502, 503, 504])

        let none = ClientSettings.configuration(for: try parsedCommand(["get", "-A", "", "u"]))
        #expect(none.defaultFields["User-Agent"] == nil)
        // A download retries its own attempts (resuming); the client under it does not retry as well.
        #expect(ClientSettings.configuration(for: try parsedCommand(["download", "--retry", "3", "u"])).retry == .none)
    }

    @Test("-s prints no error line and keeps the exit code; -sS prints it", .timeLimit(.scaledMinutes(1)))
    func silentAndShowError() async throws {
        try await withFixtureServer { server in
            let silent = try await WireProcess.run(["get", "-fs", server.baseURL + "status/404"])
            #expect(silent.status == 22)
            #expect(silent.standardError.isEmpty, "\(silent.standardError)")
            let shown = try await WireProcess.run(["get", "-fsS", server.baseURL + "status/404"])
            #expect(shown.status == 22)
            #expect(shown.standardError.hasPrefix("wire: error: "), "\(shown.standardError)")
            // The body of a success and the -w report still come out.
            let quiet = try await WireProcess.run(["get", "-s", server.baseURL + "bytes/10", "-w", "%{http_code}"])
            #expect(quiet.status == 0)
            #expect(quiet.outputBytes.count == 13 && quiet.standardOutput.hasSuffix("200"))
        }
    }

    @Test("-A and -e set the fields the server receives; -A \"\" sends no User-Agent", .timeLimit(.scaledMinutes(1)))
    func userAgentAndReferer() async throws {
        try await withFixtureServer { server in
            let sent = try await WireProcess.run([
                "get", "-A", "probe/1", "-e", "https://from.test/page", server.baseURL + "json",
            ])
            #expect(sent.status == 0, "\(sent.standardError)")
            let withAgent = try #require(server.requestLog.last)
            #expect(withAgent.fields["User-Agent"] == "probe/1")
            #expect(withAgent.fields["Referer"] == "https://from.test/page")

            let bare = try await WireProcess.run(["get", "-A", "", server.baseURL + "json"])
            #expect(bare.status == 0, "\(bare.standardError)")
            let withoutAgent = try #require(server.requestLog.last)
            #expect(withoutAgent.fields["User-Agent"] == nil)
            #expect(withoutAgent.fields["Referer"] == nil)
        }
    }

    @Test(
        "-k accepts a certificate no trusted CA signed, or one for another name; without it, exit 60",
        .timeLimit(.scaledMinutes(1)), arguments: ["leaf", "wrong-host"])
    func insecure(leaf: String) async throws {
        let directory = try #require(await TestCertificates.directory, "make-certs.sh failed")
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: "\(directory)/\(leaf).pem"),
            privateKey: .file(path: "\(directory)/\(leaf).key"))
        try await withFixtureServer(tls: tls) { server in
            let checked = try await WireProcess.run(["get", server.baseURL + "json"])
            #expect(checked.status == 60, "\(checked.standardError)")
            let unchecked = try await WireProcess.run(["get", "-k", server.baseURL + "json"])
            #expect(unchecked.status == 0, "\(unchecked.standardError)")
            #expect(unchecked.standardOutput.contains("hello from the HTTPWire fixture server"))
        }
    }

    @Test(
        "-N writes each piece of a live stream as it arrives; the fixture's /events reads as text/event-stream",
        .timeLimit(.scaledMinutes(1)))
    func noBuffer() async throws {
        try await withFixtureServer { server in
            // Two events in quick succession, then the stream stays open until the test has seen both.
            let (gate, open) = AsyncStream<Void>.makeStream()
            server.addCustomRoute(
                FixtureCustomRoute(
                    matches: { $0.target == "/live" },
                    handler: { responder in
                        try await responder.sendHead(
                            status: 200, fields: ["Content-Type": "text/event-stream"], contentLength: nil)
                        try await responder.sendChunk(Array("data: 1\n\n".utf8))
                        try await responder.sendChunk(Array("data: 2\n\n".utf8))
                        var waits = gate.makeAsyncIterator()
                        _ = await waits.next()
                        try await responder.sendLastChunk()
                    }))
            // Without -N the second event, written within 100 ms of the first, would wait in wire's buffer
            // for a next piece that does not come until the test opens the gate: this loop would not end.
            let running = try await WireProcess.start(["get", "-N", server.baseURL + "live"])
            while await !running.outputSoFar().contains("data: 2\n\n") {
                try await Task.sleep(for: .milliseconds(5))
            }
            open.yield()
            let result = try await running.finish()
            #expect(result.status == 0 && result.standardOutput == "data: 1\n\ndata: 2\n\n", "\(result.standardError)")

            let events = try await WireProcess.run(["get", "-i", "-N", server.baseURL + "events?count=2"])
            #expect(events.status == 0, "\(events.standardError)")
            #expect(events.standardOutput.contains("Content-Type: text/event-stream"))
            #expect(events.standardOutput.hasSuffix("id: 2\nevent: tick\ndata: {\"n\": 2}\n\n"))
        }
    }

    @Test(
        "--retry N sends a GET again after 503 (Retry-After honoured) up to N times; a POST is sent once",
        .timeLimit(.scaledMinutes(1)))
    func retry() async throws {
        try await withFixtureServer { server in
            // Answers 503 (Retry-After: 0, so no backoff wait) to the first two requests, then 200.
            let served = LockedState(0)
            server.addCustomRoute(
                FixtureCustomRoute(
                    matches: { $0.target == "/flaky" },
                    handler: { responder in
                        _ = try await responder.readBody(limit: 1 << 16)
                        let count = served.withLock { count in
                            count += 1
                            return count
                        }
                        if count <= 2 {
                            try await responder.respond(
                                status: 503, fields: ["Retry-After": "0"], body: Array("busy\n".utf8))
                        } else {
                            try await responder.respond(status: 200, fields: [:], body: Array("ok\n".utf8))
                        }
                    }))
            let url = server.baseURL + "flaky"

            let tooFew = try await WireProcess.run(["get", "-f", "--retry", "1", url])
            #expect(tooFew.status == 22, "two attempts, both 503: \(tooFew.standardError)")
            #expect(served.withLock { $0 } == 2)

            served.withLock { $0 = 0 }
            let enough = try await WireProcess.run(["get", "-f", "--retry", "2", url])
            #expect(enough.status == 0, "\(enough.standardError)")
            #expect(enough.standardOutput == "ok\n")
            #expect(served.withLock { $0 } == 3)

            // POST is not idempotent (RFC 9110 §9.2.2): one attempt, whatever --retry says.
            served.withLock { $0 = 0 }
            let posted = try await WireProcess.run(["post", "-f", "--retry", "2", "-d", "a=1", url])
            #expect(posted.status == 22)
            #expect(served.withLock { $0 } == 1)
        }
    }

    @Test(
        "-w reports after a failure as curl does: 000 with no answer, the status with --fail, what came of a cut body",
        .timeLimit(.scaledMinutes(1)))
    func writeOutAfterFailure() async throws {
        try await withClosedPort { port in
            let url = "http://127.0.0.1:\(port)/x"
            for command in ["get", "head", "delete"] {
                let refused = try await WireProcess.run([command, "-s", url, "-w", "%{http_code} %{url_effective}"])
                #expect(refused.status == 7)
                #expect(refused.standardOutput == "000 " + url, "\(command)")
            }
        }
        try await withFixtureServer { server in
            for command in ["get", "head", "post"] {
                let failed = try await WireProcess.run([
                    command, "-sf", server.baseURL + "status/404", "-w", "%{http_code}",
                ])
                #expect(failed.status == 22)
                #expect(failed.standardOutput == "404", "\(command)")
            }
            // 100 bytes announced, 50 sent, then the connection closes: exit 18 after the 50 bytes and the report.
            let cut = try await WireProcess.run([
                "get", "-s", server.baseURL + "truncate?announce=100&send=50", "-w", "\n%{http_code} %{size_download}",
            ])
            #expect(cut.status == 18)
            #expect(cut.outputBytes.count == 50 + "\n200 50".utf8.count)
            #expect(cut.standardOutput.hasSuffix("\n200 50"))
        }
    }

    @Test("--data-binary is -d; --data-raw keeps a leading @; -T is a file body that excludes -d")
    func bodyFlags() throws {
        #expect(try parsedCommand(["post", "u", "--data-binary", "@a.bin"]).body == .file("a.bin"))
        #expect(try parsedCommand(["post", "u", "--data-raw", "@handle"]).body == .text("@handle"))
        #expect(try parsedCommand(["put", "-T", "a.bin", "u"]).body == .upload("a.bin"))
        #expect(try parsedCommand(["post", "-Ta.bin", "u"]).body == .upload("a.bin"))
        #expect(usageMessage(["put", "-T", "a.bin", "-d", "x", "u"]) == "give one body: -T or --data, not both")
        #expect(
            usageMessage(["put", "-T", "a.bin", "--json", "{}", "u"]) == "give one body: --json, --data or -T, once")
        #expect(usageMessage(["get", "-T", "a.bin", "u"]) == "option -T does not apply to wire get")
    }

    @Test("put -T streams the file's bytes with no Content-Type, as curl -T does", .timeLimit(.scaledMinutes(1)))
    func uploadFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-T-\(UUID())").path
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withFixtureServer { server in
            let result = try await WireProcess.run(["put", "-T", path, server.baseURL + "echo"])
            #expect(result.status == 0, "\(result.standardError)")
            let echo = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(echo?["method"] as? String == "PUT")
            #expect(echo?["body_length"] as? Int == bytes.count)
            #expect(echo?["body_sha256"] as? String == SHA256Digest.of(bytes)?.hexString)
            let head = try #require(server.requestLog.last)
            #expect(head.fields["Content-Type"] == nil)
            #expect(head.fields["Content-Length"] == String(bytes.count))
        }
    }

    @Test("-O names the file after the URL's last path segment, decoded and made safe; one URL, not with -o")
    func remoteNameRules() throws {
        #expect(try parsedCommand(["get", "-sO", "u"]).remoteName)
        #expect(usageMessage(["get", "-O", "-o", "f", "u"]) == "use either -o or -O, not both")
        #expect(usageMessage(["get", "-O", "u", "v"]) == "-O saves one URL; for several, use wire download URL...")
        #expect(usageMessage(["download", "-O", "u"]) == "option -O does not apply to wire download")
        #expect(try Commands.remoteFileName("http://h/a/b%20c.txt?q=1#f") == "b c.txt")
        #expect(try Commands.remoteFileName("https://h/report") == "report")
        for url in ["http://h/", "http://h", "http://h/a/..", "http://h/%2E%2E"] {
            #expect(throws: UsageError.self, "\(url)") { try Commands.remoteFileName(url) }
        }
        // A decoded slash cannot make the name a path.
        let name = try? Commands.remoteFileName("http://h/..%2F..%2Fetc%2Fpasswd")
        #expect(name.map { !$0.contains("/") } ?? true)
        #expect(throws: HTTPWireError.self) { try Commands.remoteFileName("not a url") }
    }

    @Test("get -O saves the body in the current directory under the URL's name", .timeLimit(.scaledMinutes(1)))
    func remoteName() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-O-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let result = try await WireProcess.run(["get", "-sO", server.baseURL + "bytes/4321?seed=7"], in: directory)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.outputBytes.isEmpty)
            let saved = try #require(FileManager.default.contents(atPath: directory + "/4321"))
            #expect(saved.count == 4321)
        }
    }

    @Test("--resolve reads curl's HOST:PORT:ADDR[,ADDR]; addresses must be IP literals")
    func resolveParsing() throws {
        let parsed = try parsedCommand([
            "get", "--resolve", "API.example.test:443:127.0.0.1,[::1]", "--resolve", "[::1]:8443:::1", "u",
        ])
        #expect(parsed.resolve == ["api.example.test:443": ["127.0.0.1", "::1"], "[::1]:8443": ["::1"]])
        // Addresses come out as a URL's host spells them.
        #expect(
            try parsedCommand(["get", "--resolve", "h:80:[0:0::1],127.0.0.1", "u"]).resolve == [
                "h:80": ["::1", "127.0.0.1"]
            ])
        #expect(ClientSettings.configuration(for: parsed).addressOverrides == parsed.resolve)
        for bad in [
            "h:443:localhost", "h:443:", "h:0:127.0.0.1", "h:x:127.0.0.1", "h:127.0.0.1", "*:443:127.0.0.1",
            "+h:443:127.0.0.1", ":443:127.0.0.1", "[::1:443:::1", "h:443:1.2.3.4:80", "h:443:999.1.1.1",
            "h:443:example.com", "h:443:1.2.3.4/x",
        ] {
            #expect(usageMessage(["get", "--resolve", bad, "u"])?.hasPrefix("--resolve needs") == true, "\(bad)")
        }
    }

    @Test("--unix-socket PATH becomes the client's socket file; an empty path and serve with --port are refused")
    func unixSocketParsing() throws {
        let parsed = try parsedCommand(["get", "--unix-socket", "/run/app.sock", "u"])
        #expect(ClientSettings.configuration(for: parsed).unixSocketPath == "/run/app.sock")
        #expect(ClientSettings.configuration(for: try parsedCommand(["get", "u"])).unixSocketPath == nil)
        #expect(usageMessage(["get", "--unix-socket", "", "u"]) == "--unix-socket needs the path of a socket file")
        #expect(try parsedCommand(["serve", "--unix-socket", "/tmp/s.sock"]).unixSocket == "/tmp/s.sock")
        #expect(
            usageMessage(["serve", "--port", "8080", "--unix-socket", "/tmp/s.sock"])
                == "use either --port or --unix-socket, not both")
    }

    @Test("--connect-to reads curl's four fields (any may be empty) and sends the connection elsewhere, Host kept")
    func connectTo() async throws {
        let parsed = try parsedCommand([
            "get", "--connect-to", "API.example.test:443:node-3.test:8443", "--connect-to", "::[::1]:", "u",
        ])
        #expect(parsed.connectTo == ["api.example.test:443": "node-3.test:8443", ":": "[::1]:"])
        #expect(ClientSettings.configuration(for: parsed).hostOverrides == parsed.connectTo)
        for bad in ["h:443:n", "h:443:n:70000", "h:x:n:1", "[::1:443:n:1", "h:1:n:2:3", "h/x:1:n:2"] {
            #expect(usageMessage(["get", "--connect-to", bad, "u"])?.hasPrefix("--connect-to needs") == true, "\(bad)")
        }
        try await withFixtureServer { server in
            let result = try await WireProcess.run([
                "get", "--connect-to", "api.example.test:80:127.0.0.1:\(server.port)", "http://api.example.test/json",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("hello from the HTTPWire fixture server"))
            #expect(server.requestLog.last?.fields["Host"] == "api.example.test")
        }
    }

    @Test(
        "--resolve sends a name DNS does not know to a local server; Host keeps the name", .timeLimit(.scaledMinutes(1))
    )
    func resolve() async throws {
        try await withFixtureServer { server in
            let url = "http://api.example.test:\(server.port)/json"
            let result = try await WireProcess.run([
                "get", "--resolve", "api.example.test:\(server.port):127.0.0.1", url,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("hello from the HTTPWire fixture server"))
            #expect(server.requestLog.last?.fields["Host"] == "api.example.test:\(server.port)")
        }
    }

    @Test("--fail-with-body writes the error page, then exits 22; -# and --http1.1 are accepted")
    func failWithBody() async throws {
        #expect(try parsedCommand(["get", "-#", "--http1.1", "u"]).progress == true)
        #expect(usageMessage(["get", "-f", "--fail-with-body", "u"]) == "use either -f or --fail-with-body, not both")
        try await withFixtureServer { server in
            let page = try await WireProcess.run([
                "get", "--fail-with-body", server.baseURL + "status/404", "-w", "|%{http_code}",
            ])
            #expect(page.status == 22)
            let fixture = try await WireProcess.run(["get", server.baseURL + "status/404"])
            #expect(fixture.status == 0)
            #expect(page.standardOutput == fixture.standardOutput + "|404", "the body, then the report")
            #expect(page.standardError.hasPrefix("wire: error: "))
            let posted = try await WireProcess.run([
                "post", "--fail-with-body", "-d", "a", server.baseURL + "status/500",
            ])
            #expect(posted.status == 22)
            let fine = try await WireProcess.run(["get", "--fail-with-body", server.baseURL + "bytes/10"])
            #expect(fine.status == 0 && fine.outputBytes.count == 10)
        }
    }

    @Test(
        "--create-dirs makes the missing directories of -o and --dir; without it, exit 23",
        .timeLimit(.scaledMinutes(1)))
    func createDirs() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wire-dirs-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/100"
            let missing = try await WireProcess.run(["get", "-s", url, "-o", root + "/a/b/out"])
            #expect(missing.status == 23)
            let made = try await WireProcess.run(["get", "--create-dirs", url, "-o", root + "/a/b/out"])
            #expect(made.status == 0, "\(made.standardError)")
            #expect(FileManager.default.contents(atPath: root + "/a/b/out")?.count == 100)
            let downloaded = try await WireProcess.run(["download", "--create-dirs", url, "--dir", root + "/d/e"])
            #expect(downloaded.status == 0, "\(downloaded.standardError)")
            #expect(FileManager.default.contents(atPath: root + "/d/e/100")?.count == 100)
        }
    }

    @Test("-D writes each head as received, CRLFs and all: to a file, or to standard output before its body")
    func dumpHeader() async throws {
        #expect(usageMessage(["download", "-D", "h.txt", "u"]) == "option -D does not apply to wire download")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wire-D-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await withFixtureServer { server in
            let toFile = try await WireProcess.run([
                "get", "-D", root + "/heads", server.baseURL + "headers?X-One=1", "-o", root + "/body",
            ])
            #expect(toFile.status == 0, "\(toFile.standardError)")
            let heads = String(
                decoding: try #require(FileManager.default.contents(atPath: root + "/heads")), as: UTF8.self)
            #expect(heads.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(heads.contains("\r\nX-One: 1\r\n"))
            #expect(heads.hasSuffix("\r\n\r\n"))
            #expect(toFile.standardOutput.isEmpty)

            // Two URLs to standard output: each head comes right before its own body.
            let inline = try await WireProcess.run([
                "get", "-D", "-", server.baseURL + "headers?A=1", server.baseURL + "headers?B=2",
            ])
            #expect(inline.status == 0, "\(inline.standardError)")
            let text = inline.standardOutput
            let first = try #require(text.range(of: "A: 1\r\n"))
            let second = try #require(text.range(of: "B: 2\r\n"))
            #expect(first.upperBound < second.lowerBound)
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK\r\n").count == 3)

            // --fail: the head is saved before the exit 22.
            let failed = try await WireProcess.run(["get", "-f", "-D", root + "/failed", server.baseURL + "status/404"])
            #expect(failed.status == 22)
            let failedHead = FileManager.default.contents(atPath: root + "/failed").map {
                String(decoding: $0, as: UTF8.self)
            }
            #expect(failedHead?.hasPrefix("HTTP/1.1 404 Not Found\r\n") == true)
        }
    }

    @Test("post -F and put -F send a multipart body as wire upload does, with their own method")
    func formOnPostAndPut() async throws {
        let posted = try parsedCommand(["post", "-F", "a=1", "u"])
        #expect(posted.command == .upload && posted.method == "POST" && posted.form.count == 1)
        #expect(try parsedCommand(["put", "-F", "a=1", "u"]).method == "PUT")
        #expect(try parsedCommand(["post", "-X", "PATCH", "-F", "a=1", "u"]).method == "PATCH")
        #expect(
            usageMessage(["post", "-F", "a=1", "-d", "x", "u"]) == "give one body: -F parts, or --data, --json or -T")
        #expect(usageMessage(["get", "-F", "a=1", "u"]) == "option -F does not apply to wire get")
        try await withFixtureServer { server in
            let result = try await WireProcess.run(["put", server.baseURL + "echo", "-F", "name=Ada", "-F", "note=hi"])
            #expect(result.status == 0, "\(result.standardError)")
            let echo = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(echo?["method"] as? String == "PUT")
            let body = echo?["body"] as? String ?? ""
            #expect(body.contains("name=\"name\"\r\n\r\nAda\r\n") && body.contains("name=\"note\"\r\n\r\nhi\r\n"))
            let head = try #require(server.requestLog.last)
            #expect(head.fields["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        }
    }

    @Test("-w's %{exitcode}, %{errormsg}, %{http_version}, %{num_headers} and %{num_retries}")
    func writeOutVariables() async throws {
        let format = try WriteOut.parse("%{http_version} %{num_headers} %{num_retries} %{exitcode} [%{errormsg}]")
        var metrics = RequestMetrics()
        metrics.retries = 2
        let answered = WriteOut.Transfer(
            status: 200, version: .http1_0, url: "http://a/", fields: ["A": "1", "B": "2"], metrics: metrics)
        #expect(format.render(answered) == "1.0 2 2 0 []")
        #expect(format.render(WriteOut.Transfer(exitCode: 28, errorMessage: "timed out")) == "0 0 0 28 [timed out]")
        try await withClosedPort { port in
            let refused = try await WireProcess.run([
                "get", "-s", "http://127.0.0.1:\(port)/", "-w", "%{exitcode}|%{errormsg}",
            ])
            #expect(refused.status == 7)
            #expect(
                refused.standardOutput
                    == "7|could not connect to 127.0.0.1 port \(port): connection refused (errno 111)")
        }
    }

    @Test("-Z and --parallel-max, -r, --oauth2-bearer: curl's spellings, parsed and sent")
    func parallelRangeBearer() async throws {
        #expect(try parsedCommand(["get", "-Z", "a", "b"]).parallel == 50)
        #expect(try parsedCommand(["get", "-Z", "--parallel-max", "4", "a", "b"]).parallel == 4)
        #expect(
            try parsedCommand(["get", "--parallel", "3", "-Z", "a"]).parallel == 3, "an explicit --parallel N wins")
        #expect(try parsedCommand(["get", "--parallel-max", "4", "a"]).parallel == 1, "as in curl, only with -Z")
        #expect(usageMessage(["get", "-Z", "--parallel-max", "301", "u"])?.contains("1...300") == true)
        #expect(
            try parsedCommand(["get", "-r", "0-9,-5", "u"]).headers == [
                HeaderArgument(name: "Range", value: "bytes=0-9,-5")
            ])
        #expect(
            try parsedCommand(["get", "-r", "0-9", "-H", "Range: bytes=5-", "u"]).headers == [
                HeaderArgument(name: "Range", value: "bytes=5-")
            ])
        #expect(usageMessage(["get", "-r", "ten", "u"])?.hasPrefix("-r needs a byte range") == true)
        #expect(try parsedCommand(["get", "-o", "-", "u"]).output == nil, "-o - is standard output, as in curl")
        #expect(usageMessage(["download", "-o", "-", "u"])?.hasPrefix("wire download saves to a file") == true)
        #expect(
            usageMessage(["get", "--oauth2-bearer", "t", "-u", "a:b", "u"])
                == "use either -u or --oauth2-bearer, not both")
        #expect(
            ClientSettings.configuration(for: try parsedCommand(["get", "--oauth2-bearer", "t0k", "u"])).authorization
                == .bearer("t0k"))
        try await withFixtureServer { server in
            let whole = try await WireProcess.run(["get", server.baseURL + "bytes/100"])
            let part = try await WireProcess.run([
                "get", "-r", "10-19", server.baseURL + "bytes/100", "-o", "-", "-w", "|%{http_code}",
            ])
            #expect(part.status == 0, "\(part.standardError)")
            #expect(Array(part.outputBytes.prefix(10)) == Array(whole.outputBytes[10..<20]))
            #expect(part.standardOutput.hasSuffix("|206"))
            let bearer = try await WireProcess.run(["get", "--oauth2-bearer", "t0k", server.baseURL + "json"])
            #expect(bearer.status == 0)
            #expect(server.requestLog.last?.fields["Authorization"] == "Bearer t0k")
            let both = try await WireProcess.run(["get", "-Z", server.baseURL + "bytes/5", server.baseURL + "json"])
            #expect(both.status == 0 && both.outputBytes.count == 5 + 88, "in order, as --parallel")
        }
    }

    @Test("--max-filesize: an announced body over the limit is not started, a chunked one stops at it (exit 63)")
    func maxFileSize() async throws {
        #expect(try parsedCommand(["get", "--max-filesize", "2K", "u"]).maxFileSize == 2048)
        #expect(
            usageMessage(["get", "--max-filesize", "x", "u"])
                == "--max-filesize needs a size such as 500K or 2G, not \"x\"")
        #expect(
            usageMessage(["download", "--max-filesize", "1", "u"])
                == "option --max-filesize does not apply to wire download")
        try await withFixtureServer { server in
            let fits = try await WireProcess.run(["get", "--max-filesize", "1000", server.baseURL + "bytes/1000"])
            #expect(fits.status == 0 && fits.outputBytes.count == 1000)
            let announced = try await WireProcess.run(["get", "--max-filesize", "1000", server.baseURL + "bytes/1001"])
            #expect(announced.status == 63)
            #expect(announced.standardOutput.isEmpty, "a body announced too large is not started")
            #expect(announced.standardError.contains("larger than the 1000-byte limit"), "\(announced.standardError)")
            // 4 chunks of 1000 bytes, no Content-Length: the body stops where it crosses 2500 bytes.
            let chunked = try await WireProcess.run([
                "get", "--max-filesize", "2500", server.baseURL + "chunked?chunks=4&size=1000",
            ])
            #expect(chunked.status == 63)
            // The pieces before the one that crosses the limit are written; how the chunks arrive (one read or
            // several) decides how many, never more than the limit.
            #expect(chunked.outputBytes.count <= 2500)
            let parallel = try await WireProcess.run([
                "get", "--parallel", "2", "--max-filesize", "1000", server.baseURL + "bytes/10",
                server.baseURL + "chunked?chunks=4&size=1000",
            ])
            #expect(parallel.status == 63)
        }
    }

    @Test("-i, wire head and -D show each redirect's head before the final one, as curl -iL and -IL do")
    func earlierHeads() async throws {
        try await withFixtureServer { server in
            let url = server.baseURL + "redirect/2"
            let head = try await WireProcess.run(["head", url])
            #expect(head.status == 0, "\(head.standardError)")
            let statusLines = head.standardOutput.split(separator: "\n").filter { $0.hasPrefix("HTTP/1.1 ") }
            #expect(statusLines == ["HTTP/1.1 302 Found", "HTTP/1.1 302 Found", "HTTP/1.1 200 OK"])
            #expect(head.standardOutput.hasPrefix("HTTP/1.1 302 Found\nLocation: /redirect/1\n"))
            #expect(
                head.standardOutput.contains("\n\nHTTP/1.1 302 Found\nLocation: /json\n"), "an empty line after each")

            let included = try await WireProcess.run(["get", "-i", url])
            #expect(included.standardOutput.hasPrefix("HTTP/1.1 302 Found\nLocation: /redirect/1\n"))
            #expect(
                included.standardOutput.hasSuffix(
                    "\n\n{\"is_fixture\":true,\"message\":\"hello from the HTTPWire fixture server\",\"numbers\":[1,2,3]}"
                ))
            #expect(included.standardOutput.components(separatedBy: "HTTP/1.1 ").count == 4)

            // -D - with the body elsewhere: the three heads, CRLFs and all, each ending in an empty line.
            let dumped = try await WireProcess.run(["get", "-D", "-", "-o", "/dev/null", url])
            let heads = dumped.standardOutput.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
            #expect(heads.map { $0.prefix(15) } == ["HTTP/1.1 302 Fo", "HTTP/1.1 302 Fo", "HTTP/1.1 200 OK"])
            #expect(dumped.standardOutput.hasSuffix("\r\n\r\n"))

            // A chain cut by --max-redirects (exit 47): the heads that came are still shown.
            let cut = try await WireProcess.run(["head", "--max-redirects", "1", url])
            #expect(cut.status == 47)
            #expect(
                cut.standardOutput.components(separatedBy: "HTTP/1.1 302 Found").count == 3, "\(cut.standardOutput)")

            // No redirect: one head, as before.
            let plain = try await WireProcess.run(["head", server.baseURL + "json"])
            #expect(plain.standardOutput.components(separatedBy: "HTTP/1.1 ").count == 2)
        }
    }

    @Test(
        "-w: %{remote_ip} and %{remote_port} name the peer that answered, %{local_ip} and %{local_port} this end; -4 and -6 choose the family"
    )
    func writeOutRemote() async throws {
        let format = try WriteOut.parse("%{remote_ip}|%{remote_port}|%{local_ip}|%{local_port}")
        #expect(format.render(WriteOut.Transfer()) == "|0||0", "no connection: empty and 0, as curl")
        try await withFixtureServer { server in
            // localhost may resolve to ::1 as well; the server listens on 127.0.0.1 only, so that is the peer.
            let url = "http://localhost:\(server.port)/json"
            let result = try await WireProcess.run([
                "get", "-s", "-o", "/dev/null", url, "-w", "%{remote_ip}|%{remote_port}",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "127.0.0.1|\(server.port)")
            // This end of the connection: loopback, and an ephemeral port that is not the server's.
            let local = try await WireProcess.run([
                "get", "-s", "-o", "/dev/null", url, "-w", "%{local_ip}|%{local_port}",
            ])
            let parts = local.standardOutput.split(separator: "|")
            #expect(parts.count == 2 && parts[0] == "127.0.0.1", "\(local.standardOutput)")
            #expect(parts.count == 2 && (Int(parts[1]) ?? 0) > 0 && Int(parts[1]) != server.port)
            // -4 and -6 keep one family of a name's addresses (here two, given by --resolve); -6 has none.
            let dual = "dual.test:\(server.port):[::1],127.0.0.1"
            let four = try await WireProcess.run([
                "get", "-4", "--resolve", dual, "-o", "/dev/null", "http://dual.test:\(server.port)/json", "-w",
                "%{remote_ip}",
            ])
            #expect(four.status == 0 && four.standardOutput == "127.0.0.1", "\(four.standardError)")
            let six = try await WireProcess.run(["get", "-s", "-6", "http://127.0.0.1:\(server.port)/json"])
            #expect(six.status == 6)
        }
    }

    @Test("download -C - is accepted (it resumes anyway), other offsets are refused; --retry-delay fixes the wait")
    func continueAndRetryDelay() throws {
        #expect(try parsedCommand(["download", "-C", "-", "u"]).continueAt)
        #expect(usageMessage(["download", "-C", "100", "u"]) == "-C takes only - (resume from the bytes on disk)")
        #expect(usageMessage(["download", "-C", "-", "--restart", "u"]) == "use either -C - or --restart, not both")
        #expect(usageMessage(["get", "-C", "-", "u"]) == "option -C does not apply to wire get")
        let delayed = ClientSettings.retryPolicy(
            for: try parsedCommand(["get", "--retry", "3", "--retry-delay", "0.5", "u"]))
        #expect(delayed.maxRetries == 3)
        #expect(delayed.initialBackoff == .milliseconds(500) && delayed.maxBackoff == .milliseconds(500))
        let doubling = ClientSettings.retryPolicy(for: try parsedCommand(["get", "--retry", "3", "u"]))
        #expect(
            doubling.initialBackoff == RetryPolicy().initialBackoff && doubling.maxBackoff == RetryPolicy().maxBackoff)
        #expect(usageMessage(["get", "--retry-delay", "-1", "u"])?.contains("from 0 to 3600") == true)
    }
}

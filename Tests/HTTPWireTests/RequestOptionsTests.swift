// RequestOptionsTests: options set on one request override the client's, field by field — timeouts, the
// redirect policy, retries and validation — for plain requests, uploads and downloads.

import FixtureServer
import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct RequestOptionsTests {
    @Test(
        "a request's total timeout overrides the client's; the client's still holds for others",
        .timeLimit(.scaledMinutes(1))
    )
    func totalTimeout() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server) { $0.timeouts.total = .seconds(30).scaled }
            var request = HTTPRequest(url: "delay?ms=3000")
            request.options.timeouts.total = .milliseconds(200)
            let started = ContinuousClock.now
            await #expect(throws: HTTPWireError.timedOut(.total)) { _ = try await client.send(request) }
            #expect(ContinuousClock.now - started < .seconds(3).scaled)
            // The client's own 30 s still lets a short delay through.
            #expect(try await client.get("delay?ms=10").status == .ok)
            await client.shutdown()
        }
    }

    @Test(
        "a head timeout bounds the wait for the response head, reported as the head phase",
        .timeLimit(.scaledMinutes(1)))
    func headTimeout() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            var request = HTTPRequest(url: "delay?ms=3000")
            request.options.timeouts.head = .milliseconds(200)
            await #expect(throws: HTTPWireError.timedOut(.head)) { _ = try await client.send(request) }
            // The same option on the client.
            let strict = ClientFixture.client(for: server) { $0.timeouts.head = .milliseconds(200) }
            await #expect(throws: HTTPWireError.timedOut(.head)) { _ = try await strict.get("delay?ms=3000") }
            // A body that drips for longer than the head timeout is not the head: only idle applies to it.
            let patient = ClientFixture.client(for: server) { $0.timeouts.head = .seconds(1).scaled }
            #expect(try await patient.get("drip?bytes=4&interval_ms=\(Int(400 * TestTime.scale))").body.count == 4)
            await patient.shutdown()
            await client.shutdown()
            await strict.shutdown()
        }
    }

    @Test("a request's idle timeout overrides the client's", .timeLimit(.scaledMinutes(1)))
    func idleTimeout() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            let request = HTTPRequest(
                url: "drip?bytes=5&interval_ms=1000",
                options: {
                    var options = RequestOptions(); options.timeouts.idle = .milliseconds(200); return options
                }())
            await #expect(throws: HTTPWireError.timedOut(.body)) { _ = try await client.send(request) }
            await client.shutdown()
        }
    }

    @Test("a request's redirect policy overrides the client's", .timeLimit(.scaledMinutes(1)))
    func redirects() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            var request = HTTPRequest(url: "redirect/2")
            request.options.redirects = RedirectPolicy(maxRedirects: 0)
            let response = try await client.send(request)
            #expect(response.status.rawValue == 302)
            request.options.redirects = RedirectPolicy(maxRedirects: 1)
            await #expect(throws: HTTPWireError.tooManyRedirects(limit: 1)) { _ = try await client.send(request) }
            #expect(try await client.get("redirect/2").status == .ok)
            await client.shutdown()
        }
    }

    @Test("an upload takes the same options: its own timeout and validation", .timeLimit(.scaledMinutes(1)))
    func uploads() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            var form = MultipartForm()
            form.addField(name: "a", value: "b")
            let refused = client.upload(
                form, to: "status/413", options: RequestOptions(validation: .successful))
            await #expect {
                _ = try await refused.response
            } throws: { error in
                guard case HTTPWireError.unacceptableResponse(let response) = error else { return false }
                return response.status.rawValue == 413
            }
            let slow = client.upload(form, to: "delay?ms=3000", options: RequestOptions(timeout: .milliseconds(200)))
            await #expect(throws: HTTPWireError.timedOut(.total)) { _ = try await slow.response }
            await client.shutdown()
        }
    }

    @Test(
        "a download takes request options: credentials and redirects for each of its requests",
        .timeLimit(.scaledMinutes(1)))
    func downloads() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("options-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var options = DownloadOptions()
            options.requestOptions.authorization = .bearer("download-token")
            let result = try await client.download(
                from: "bytes/1000", to: directory.appendingPathComponent("a").path, options: options
            ).result()
            #expect(result.bytes == 1000)
            #expect(server.requestLog.last?.fields["Authorization"] == "Bearer download-token")
            options.requestOptions.redirects = RedirectPolicy(maxRedirects: 0)
            await #expect(throws: HTTPWireError.httpStatus(302)) {
                _ = try await client.download(
                    from: "redirect-to?url=/bytes/10", to: directory.appendingPathComponent("b").path,
                    options: options
                ).result()
            }
            await client.shutdown()
        }
    }

    @Test("unset options are the client's, set ones win, field by field")
    func merge() {
        var configuration = ClientConfiguration()
        configuration.timeouts.idle = .seconds(7)
        configuration.timeouts.total = .seconds(9)
        configuration.retry = .idempotent
        var options = RequestOptions(timeout: .seconds(1))
        options.redirects = RedirectPolicy(maxRedirects: 2)
        let effective = RequestOptions.Effective(options, configuration)
        #expect(effective.totalTimeout == .seconds(1))
        #expect(effective.idleTimeout == .seconds(7))
        #expect(effective.redirects.maxRedirects == 2)
        #expect(effective.retry == .idempotent)
        #expect(effective.validation == nil)
    }

    @Test("options that set nothing share the client's settings; setting any one field does not")
    func overridesNothing() throws {
        #expect(RequestOptions().overridesNothing)
        var cases: [(String, (inout RequestOptions) -> Void)] = [
            ("timeouts.connect", { $0.timeouts.connect = .seconds(1) }),
            ("timeouts.head", { $0.timeouts.head = .seconds(1) }),
            ("timeouts.idle", { $0.timeouts.idle = .seconds(1) }),
            ("timeouts.total", { $0.timeouts.total = .seconds(1) }),
            ("timeouts.expectContinue", { $0.timeouts.expectContinue = .seconds(1) }),
            ("redirects", { $0.redirects = RedirectPolicy(maxRedirects: 0) }),
            ("retry", { $0.retry = .idempotent }),
            ("validation", { $0.validation = .successful }),
            ("authorization", { $0.authorization = .bearer("t") }),
            ("jsonDecoder", { $0.jsonDecoder = JSONDecoder() }),
            ("contentDecoding", { $0.contentDecoding = .off }),
            ("offersContentCodings", { $0.offersContentCodings = false }),
        ]
        // jsonEncoder is not one of the merged settings (the request's body is encoded before).
        cases.append(("jsonEncoder (not merged)", { $0.jsonEncoder = JSONEncoder() }))
        for (name, set) in cases {
            var options = RequestOptions()
            set(&options)
            #expect(options.overridesNothing == name.hasSuffix("(not merged)"), "\(name)")
        }
        // A field added to RequestOptions or its Timeouts must join the list above (and overridesNothing).
        #expect(Mirror(reflecting: RequestOptions()).children.count == 9)
        #expect(Mirror(reflecting: RequestOptions.Timeouts()).children.count == 5)
    }
}

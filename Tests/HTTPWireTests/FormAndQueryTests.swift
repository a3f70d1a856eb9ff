// FormAndQueryTests: application/x-www-form-urlencoded bodies from pairs or an Encodable (WHATWG rules,
// RFC 3986's unreserved set), query items appended to a URL that already has a query, JSON coder settings
// on the client and the request.

import HTTPWire
import HTTPWireCodec
import HTTPWireTesting
import TestSupport
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct FormAndQueryTests {
    struct Search: Encodable {
        var q: String
        var page: Int
        var exact: Bool
        var tags: [String]
        var owner: Owner
        var missing: String?
    }

    struct Owner: Encodable {
        var name: String
    }

    @Test("pairs keep their order and repeats; spaces become +, + becomes %2B")
    func encodesPairs() {
        var form: URLEncodedForm = ["user": "ada lovelace", "note": "1+1=2 & more", "tag": "a"]
        form.append(name: "tag", value: "b~*")
        #expect(form.encodedText == "user=ada+lovelace&note=1%2B1%3D2+%26+more&tag=a&tag=b~%2A")
        #expect(URLEncodedForm([QueryItem(name: "caf\u{E9}", value: "\u{4E2D}")]).encodedText == "caf%C3%A9=%E4%B8%AD")
    }

    @Test("an Encodable becomes pairs: nested names in brackets, arrays repeated, nil left out")
    func encodesEncodable() throws {
        let value = Search(
            q: "swift http", page: 2, exact: true, tags: ["a", "b"], owner: Owner(name: "Ada"), missing: nil)
        let items = try URLEncodedFormEncoder().encode(value)
        #expect(
            items == [
                QueryItem(name: "q", value: "swift http"), QueryItem(name: "page", value: "2"),
                QueryItem(name: "exact", value: "true"), QueryItem(name: "tags", value: "a"),
                QueryItem(name: "tags", value: "b"), QueryItem(name: "owner[name]", value: "Ada"),
            ])
        var brackets = URLEncodedFormEncoder()
        brackets.arrayKeys = .brackets
        #expect(try brackets.encode(value).filter { $0.name.hasPrefix("tags") }.map(\.name) == ["tags[]", "tags[]"])
        #expect(
            try URLEncodedFormEncoder().encode(["when": Date(timeIntervalSince1970: 0)]) == [
                "when=1970-01-01T00:00:00Z"
            ])
        #expect(throws: EncodingError.self) { try URLEncodedFormEncoder().encode("bare") }
    }

    @Test(
        "a form body is sent with its Content-Type, and the server reads back the pairs", .timeLimit(.scaledMinutes(1)))
    func postsForm() async throws {
        try await withTestServer(routes: [TestRoute(.post, "/login", .text("ok"))]) {
            (server: TestServer) async throws in
            let client = server.client()
            let form: URLEncodedForm = ["user": "ada lovelace", "password": "p&ss=w+rd %"]
            #expect(try await client.post("login", form: form).status == .ok)
            let received = try #require(server.requests.last)
            #expect(received.fields["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(received.formItems == form.items)
            // RequestBody.form in a request made by hand: the same bytes, and a caller's Content-Type wins.
            let request = HTTPRequest(
                method: .post, url: "login",
                fields: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
                body: .form(try URLEncodedForm(encoding: Owner(name: "B\u{E9}a"))))
            _ = try await client.send(request)
            #expect(server.requests.last?.fields["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
            #expect(server.requests.last?.text == "name=B%C3%A9a")
            await client.shutdown()
        }
    }

    @Test("query items from an Encodable join a URL's existing query; + travels as %2B", .timeLimit(.scaledMinutes(1)))
    func queryItems() async throws {
        try await withTestServer(routes: [TestRoute(.get, "/search", .text("ok"))]) {
            (server: TestServer) async throws in
            let client = server.client()
            var request = HTTPRequest(url: "search?lang=en")
            request.queryItems = try URLEncodedFormEncoder().encode(
                Search(q: "c++ & more", page: 1, exact: false, tags: [], owner: Owner(name: "x"), missing: nil))
            _ = try await client.send(request)
            let received = try #require(server.requests.last)
            #expect(received.target.hasPrefix("/search?lang=en&q=c%2B%2B%20%26%20more&page=1"))
            #expect(received.queryValue("q") == "c++ & more")
            #expect(received.queryValue("lang") == "en")
            #expect(received.queryValue("owner[name]") == "x")
            await client.shutdown()
        }
    }

    struct Event: Codable, Equatable, Sendable {
        var eventName: String
        var startsAt: Date
    }

    @Test(
        "JSON coders set on the client apply to shortcuts and decode; a request's own wins",
        .timeLimit(.scaledMinutes(1)))
    func jsonSettings() async throws {
        let echo = TestRoute(.post, "/events") { request in
            TestResponse(status: 201, fields: ["Content-Type": "application/json"], body: request.body)
        }
        try await withTestServer(routes: [echo]) { (server: TestServer) async throws in
            let client = server.client {
                $0.jsonEncoder.keyEncodingStrategy = .convertToSnakeCase
                $0.jsonEncoder.dateEncodingStrategy = .iso8601
                $0.jsonDecoder.keyDecodingStrategy = .convertFromSnakeCase
                $0.jsonDecoder.dateDecodingStrategy = .iso8601
            }
            let event = Event(eventName: "launch", startsAt: Date(timeIntervalSince1970: 1_700_000_000))
            let response = try await client.post("events", json: event)
            #expect(response.text.contains(#""event_name":"launch""#))
            #expect(response.text.contains(#""starts_at":"2023-11-14T22:13:20Z""#))
            #expect(try response.decode(Event.self) == event)
            // A request with its own encoder (default keys, seconds since 1970).
            var options = RequestOptions()
            options.jsonEncoder = JSONEncoder()
            options.jsonEncoder?.dateEncodingStrategy = .secondsSince1970
            let own = try await client.post("events", json: event, options: options)
            #expect(own.text.contains(#""eventName":"launch""#))
            #expect(own.text.contains("1700000000"))
            await client.shutdown()
        }
    }
}

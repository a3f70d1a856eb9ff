// GettingStartedClaimsTests: the outputs the Getting Started article prints in comments are true (docs test).
//
// check-samples.sh proves the article's samples compile; it cannot run them. The claims a reader would copy
// — how query items are percent-encoded, what the request line then looks like on the wire — are checked
// here against TargetURL and against the fixture server's /echo route, which answers the request target it
// decoded. If the encoding changes, this fails until the article is updated.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@Suite struct GettingStartedClaimsTests {
    /// The article's comment after `print(url.pathAndQuery)` in the TargetURL sample.
    @Test("TargetURL encodes the article's query as the article says")
    func targetURLQuery() throws {
        let url = try TargetURL("https://shop.example.test/search")
            .appendingQueryItems([(name: "q", value: "café & crème")])
        #expect(url.pathAndQuery == "/search?q=caf%C3%A9%20%26%20cr%C3%A8me")
    }

    /// The article's comment after `print(response.url.pathAndQuery)`, and the request line it quotes.
    @Test("the client sends the article's query items as the article says", .timeLimit(.scaledMinutes(1)))
    func clientQuery() async throws {
        try await withFixtureServer { server in
            let client = HTTPClient()
            let response = try await client.get(
                server.baseURL + "echo", query: ["q=café & crème", QueryItem(name: "page", value: "2")])
            await client.shutdown()
            #expect(response.url.pathAndQuery == "/echo?q=caf%C3%A9%20%26%20cr%C3%A8me&page=2")
            let echoed = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(echoed?["target"] as? String == "/echo?q=caf%C3%A9%20%26%20cr%C3%A8me&page=2")
        }
    }
}

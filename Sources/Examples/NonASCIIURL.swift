// NonASCIIURL: text with accents and spaces in a URL's path and query is sent percent-encoded as UTF-8;
// query items are encoded so the server reads back exactly the text given (`&`, `=` and `+` included).

import HTTPWire

enum NonASCIIURL {
    /// `Examples non-ascii-url http://127.0.0.1:8080/` (the /echo route shows the request target received)
    static func run(_ arguments: [String]) async throws {
        var configuration = ClientConfiguration()
        configuration.baseURL = arguments.first ?? "http://127.0.0.1:8080/"
        configuration.logger = { event in print(event.text) }  // shows the request target as sent
        let client = HTTPClient(configuration: configuration)
        let response = try await client.get("echo/café", query: [QueryItem(name: "q", value: "crème brûlée & co")])
        print(response.text)
        await client.shutdown()
    }
}

// NonASCIIURL: text with accents and spaces in a URL's path and query goes out percent-encoded as UTF-8
// (RFC 3986 §2.1); query items are encoded so the server reads back exactly the text given, `&`, `=` and
// `+` included (example: the public API only).

import HTTPWire

/// Example: a path and a query item that are not ASCII.
package enum NonASCIIURL {
    /// `RunExample non-ascii-url http://127.0.0.1:8080/` (the /echo route shows the request target it
    /// received). `baseURL` ends in `/`.
    package static func run(client: HTTPClient, baseURL: String, log: (String) -> Void = { print($0) }) async throws
        -> HTTPResponse
    {
        let response = try await client.get(
            baseURL + "echo/café", query: [QueryItem(name: "q", value: "crème brûlée & co")])
        // On the wire: GET /echo/caf%C3%A9?q=cr%C3%A8me%20br%C3%BBl%C3%A9e%20%26%20co HTTP/1.1
        log("sent \(response.url.pathAndQuery)")
        return response
    }
}

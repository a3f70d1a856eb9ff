// HTTPRequest: what the caller asks for (client layer).
// A value type; the client resolves it against its base URL and default fields before anything is sent.

import HTTPWireCodec

/// A request to send: method, URL, fields, body and per-request options.
///
/// The URL may be absolute or, when the client has a ``ClientConfiguration/baseURL``, relative to it.
/// Spaces and non-ASCII text in it are percent-encoded as UTF-8; existing `%XX` escapes are kept.
///
/// ```swift
/// var request = HTTPRequest(method: .post, url: "users")
/// request.fields["Content-Type"] = "application/json"
/// request.body = .bytes(Array(#"{"name":"Ada"}"#.utf8))
/// let response = try await client.send(request)
/// ```
public struct HTTPRequest: Sendable {
    /// The method, `GET` by default.
    public var method: Method
    /// The URL, absolute or relative to the client's base URL.
    public var url: String
    /// Query items appended to the URL, each name and value percent-encoded so the server reads back
    /// exactly the text given (`+`, `&`, `=`, `#`, `%` and spaces included).
    public var queryItems: [QueryItem]
    /// Request fields, in order. `Host` and the framing fields are written by HTTPWire itself.
    public var fields: HTTPFields
    /// The body.
    public var body: RequestBody
    /// Send `Expect: 100-continue` and wait briefly for the server's go-ahead before the body, so a server
    /// that will refuse it (413, 401) can say so before the body is sent (RFC 9110 §10.1.1).
    public var expectContinue: Bool = false
    /// Called as the body is sent, from the task sending it, with bytes sent so far and the total when
    /// known. Reports arrive at least every 256 KiB and at the end.
    public var uploadProgress: (@Sendable (TransferProgress) -> Void)?

    /// Creates a request.
    public init(
        method: Method = .get, url: String, queryItems: [QueryItem] = [], fields: HTTPFields = [:],
        body: RequestBody = .empty
    ) {
        self.method = method
        self.url = url
        self.queryItems = queryItems
        self.fields = fields
        self.body = body
    }
}

/// One `name=value` pair of a URL query.
public struct QueryItem: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The name, as plain text (it is percent-encoded when the URL is built).
    public var name: String
    /// The value, as plain text.
    public var value: String

    /// Creates a query item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `"q=text"` as a literal: the part before the first `=` is the name.
    public init(stringLiteral text: String) {
        if let equals = text.firstIndex(of: "=") {
            self.init(name: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
        } else {
            self.init(name: text, value: "")
        }
    }
}

/// A request after the client has applied its configuration: an absolute URL and all fields.
struct ResolvedRequest: Sendable {
    var method: Method
    var url: TargetURL
    var fields: HTTPFields
    var body: RequestBody
    var expectContinue: Bool
    var uploadProgress: (@Sendable (TransferProgress) -> Void)?
}

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
/// request.options.timeouts.total = .seconds(5)     // this request only; see RequestOptions
/// let response = try await client.send(request)
/// ```
///
/// `user:password@` in the URL is sent as `Authorization: Basic` (RFC 7617) and removed from the target and
/// `Host`; it goes to the URL's origin only.
public struct HTTPRequest: Sendable {
    /// The method, `GET` by default.
    public var method: Method
    /// The URL, absolute or relative to the client's base URL.
    public var url: String
    /// Query items appended to the URL (after any query it already has, with `&`), each name and value
    /// percent-encoded so the server reads back exactly the text given: a `+` is sent as `%2B`, a space as
    /// `%20` (RFC 3986; both form decoders and plain ones read `%20` as a space, while a raw `+` means a
    /// space to some and a plus to others), and `&`, `=`, `#`, `%` are escaped too. From an `Encodable`:
    /// `try URLEncodedFormEncoder().encode(filter)`.
    public var queryItems: [QueryItem]
    /// Request fields, in order. `Host` and the framing fields are written by HTTPWire itself.
    public var fields: HTTPFields
    /// The body.
    public var body: RequestBody
    /// Send `Expect: 100-continue` and wait briefly for the server's go-ahead before the body, so a server
    /// that will refuse it (413, 401) can say so before the body is sent (RFC 9110 §10.1.1). The wait is
    /// ``ClientConfiguration/Timeouts/expectContinue``; a server that never answers gets the body then. A
    /// final answer instead means the body is not sent and the connection is closed; a 417 makes the client
    /// repeat the request once without the expectation, as RFC 9110 §10.1.1 advises.
    public var expectContinue: Bool = false
    /// Called as the body is sent, from the task sending it, with bytes sent so far (`receivedBytes`), the
    /// total when known, and the speed and time left once measured. Values never go backwards (a body sent
    /// again for a redirect or a retry shows as a pause); they arrive at least every 256 KiB or about every
    /// 50 ms while bytes flow, and a body sent completely ends with its total. While the body stalls (a
    /// server that stops reading) a value still comes once a second, from the reactor thread: the same
    /// count, with the speed falling and the time left growing. Keep the callback quick.
    /// ``HTTPClient/upload(_:)`` offers the same values as an `AsyncStream`.
    public var uploadProgress: (@Sendable (TransferProgress) -> Void)?
    /// Timeouts, redirects, retries, validation, credentials and JSON coders for this request; each one
    /// left unset is the client's.
    public var options = RequestOptions()

    /// Creates a request.
    public init(
        method: Method = .get, url: String, queryItems: [QueryItem] = [], fields: HTTPFields = [:],
        body: RequestBody = .empty, options: RequestOptions = RequestOptions()
    ) {
        self.method = method
        self.url = url
        self.queryItems = queryItems
        self.fields = fields
        self.body = body
        self.options = options
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
    /// The caller's upload progress callback behind its meter (one per `send`).
    var uploadProgress: UploadProgressMeter?
}

// TestRequest: a request as a route of the test server received it — method, path, query, fields and the
// whole body (edge layer, HTTPWireTesting).
//
// A test asserts on what its code sent: the JSON it posted, the form, the `Authorization` it added, the
// query items. So the request arrives here already taken apart — the query decoded by form rules (`+` is a
// space, `%XX` a byte: what a server framework reads) — and every one is kept by the server for the test to
// inspect afterwards. Values only.

import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request received by a ``TestServer`` route.
///
/// ```swift
/// let route = TestRoute(.post, "/users") { request in
///     let user = try request.decode(User.self)
///     #expect(request.fields["Authorization"] == "Bearer t0ken")
///     return try .json(user, status: 201)
/// }
/// ```
public struct TestRequest: Sendable {
    /// The method.
    public let method: Method
    /// The request target as sent: path and query, percent-encoded (`/search?q=caf%C3%A9`).
    public let target: String
    /// The path part of the target, as sent (still percent-encoded).
    public let path: String
    /// The query's pairs in order, decoded by form rules (`+` is a space).
    public let query: [QueryItem]
    /// The fields as received.
    public let fields: HTTPFields
    /// The whole body.
    public let body: [UInt8]

    /// A received request from its head and body.
    init(head: RequestHead, body: [UInt8]) {
        self.method = head.method
        self.target = head.target
        let parts = head.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.path = String(parts[0])
        self.query = parts.count > 1 ? Self.formPairs(parts[1]) : []
        self.fields = head.fields
        self.body = body
    }

    /// The first value of the query item `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded as JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> Value
    {
        try decoder.decode(type, from: Data(body))
    }

    /// The body read as an `application/x-www-form-urlencoded` form, in order.
    public var formItems: [QueryItem] { Self.formPairs(Substring(text)) }

    /// `a=1&b=x+y` as pairs: split at `&` and the first `=`, `+` read as a space, then `%XX` decoded.
    static func formPairs(_ text: Substring) -> [QueryItem] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return QueryItem(name: decoded(parts[0]), value: parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = String(text.map { $0 == "+" ? " " : $0 })
        return String(decoding: PercentEncoding.decode(spaced), as: UTF8.self)
    }
}

// HTTPClientShortcuts: one-line calls for the common requests (client layer).
// Each builds an HTTPRequest and calls `send`; nothing here has behaviour of its own.

import HTTPWireCodec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HTTPClient {
    /// `GET url` with optional query items and fields; the body is collected in memory.
    ///
    /// ```swift
    /// let results = try await client.get("search", query: ["q=café & crème"])
    /// ```
    public func get(_ url: String, query: [QueryItem] = [], fields: HTTPFields = [:]) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .get, url: url, queryItems: query, fields: fields))
    }

    /// `HEAD url`: the fields a GET would return, without the body (RFC 9110 §9.3.2).
    public func head(_ url: String, fields: HTTPFields = [:]) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .head, url: url, fields: fields))
    }

    /// `DELETE url`.
    public func delete(_ url: String, fields: HTTPFields = [:]) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .delete, url: url, fields: fields))
    }

    /// `POST url` with `value` encoded as JSON (`Content-Type: application/json`).
    public func post(_ url: String, json value: some Encodable & Sendable, fields: HTTPFields = [:]) async throws
        -> HTTPResponse
    {
        try await send(Self.jsonRequest(.post, url, value, fields))
    }

    /// `PUT url` with `value` encoded as JSON.
    public func put(_ url: String, json value: some Encodable & Sendable, fields: HTTPFields = [:]) async throws
        -> HTTPResponse
    {
        try await send(Self.jsonRequest(.put, url, value, fields))
    }

    /// `POST url` with any body (bytes, a file, a form, a stream).
    public func post(_ url: String, body: RequestBody, fields: HTTPFields = [:]) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .post, url: url, fields: fields, body: body))
    }

    /// `PUT url` with any body.
    public func put(_ url: String, body: RequestBody, fields: HTTPFields = [:]) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .put, url: url, fields: fields, body: body))
    }

    private static func jsonRequest(
        _ method: Method, _ url: String, _ value: some Encodable & Sendable, _ fields: HTTPFields
    ) throws -> HTTPRequest {
        var all = fields
        if !all.contains("Content-Type") { all.append(name: "Content-Type", value: "application/json") }
        if !all.contains("Accept") { all.append(name: "Accept", value: "application/json") }
        return HTTPRequest(method: method, url: url, fields: all, body: try .json(value))
    }
}

// HTTPClientShortcuts: one-line calls for the common requests (client layer).
// Each builds an HTTPRequest and calls `send`; nothing here has behaviour of its own, except that JSON
// bodies are encoded with the request's or the client's `JSONEncoder` (its date and key strategies).
// Every shortcut takes the same `options:` a request carries, so a per-request timeout or validation is
// one argument away.

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
    /// let user = try await client.get("users/42", options: RequestOptions(timeout: .seconds(5), validation: .successful))
    /// ```
    @concurrent public func get(
        _ url: String, query: [QueryItem] = [], fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .get, url: url, queryItems: query, fields: fields, options: options))
    }

    /// `HEAD url`: the fields a GET would return, without the body (RFC 9110 §9.3.2).
    @concurrent public func head(_ url: String, fields: HTTPFields = [:], options: RequestOptions = RequestOptions())
        async throws
        -> HTTPResponse
    {
        try await send(HTTPRequest(method: .head, url: url, fields: fields, options: options))
    }

    /// `OPTIONS url`: which methods and features the target supports, usually in `Allow` (RFC 9110 §9.3.7).
    /// Use `"*"` as the path of an absolute URL's origin (`https://example.test/*` is a path, not the
    /// asterisk form: HTTPWire always sends origin-form targets).
    @concurrent public func options(_ url: String, fields: HTTPFields = [:], options: RequestOptions = RequestOptions())
        async throws -> HTTPResponse
    {
        try await send(HTTPRequest(method: .options, url: url, fields: fields, options: options))
    }

    /// `DELETE url`.
    @concurrent public func delete(_ url: String, fields: HTTPFields = [:], options: RequestOptions = RequestOptions())
        async throws -> HTTPResponse
    {
        try await send(HTTPRequest(method: .delete, url: url, fields: fields, options: options))
    }

    /// `POST url` with `value` encoded as JSON (`Content-Type` and `Accept: application/json`), with the
    /// request's ``RequestOptions/jsonEncoder`` or the client's ``ClientConfiguration/jsonEncoder``.
    @concurrent public func post(
        _ url: String, json value: some Encodable & Sendable, fields: HTTPFields = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(jsonRequest(.post, url, value, fields, options))
    }

    /// `PUT url` with `value` encoded as JSON.
    @concurrent public func put(
        _ url: String, json value: some Encodable & Sendable, fields: HTTPFields = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(jsonRequest(.put, url, value, fields, options))
    }

    /// `PATCH url` with `value` encoded as JSON (RFC 5789; not idempotent, so never retried).
    @concurrent public func patch(
        _ url: String, json value: some Encodable & Sendable, fields: HTTPFields = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(jsonRequest(.patch, url, value, fields, options))
    }

    /// `POST url` with an `application/x-www-form-urlencoded` body, what an HTML form sends.
    ///
    /// ```swift
    /// let response = try await client.post("login", form: ["user": "ada", "password": "s3cret"])
    /// ```
    @concurrent public func post(
        _ url: String, form: URLEncodedForm, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .post, url: url, fields: fields, body: .form(form), options: options))
    }

    /// `POST url` with any body (bytes, a file, a form, a stream).
    @concurrent public func post(
        _ url: String, body: RequestBody, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .post, url: url, fields: fields, body: body, options: options))
    }

    /// `PUT url` with any body.
    @concurrent public func put(
        _ url: String, body: RequestBody, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .put, url: url, fields: fields, body: body, options: options))
    }

    /// `PATCH url` with any body.
    @concurrent public func patch(
        _ url: String, body: RequestBody, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .patch, url: url, fields: fields, body: body, options: options))
    }

    private func jsonRequest(
        _ method: Method, _ url: String, _ value: some Encodable & Sendable, _ fields: HTTPFields,
        _ options: RequestOptions
    ) throws -> HTTPRequest {
        var all = fields
        if !all.contains("Content-Type") { all.append(name: "Content-Type", value: "application/json") }
        if !all.contains("Accept") { all.append(name: "Accept", value: "application/json") }
        let encoder = options.jsonEncoder ?? configuration.jsonEncoder
        return HTTPRequest(
            method: method, url: url, fields: all, body: try .json(value, encoder: encoder), options: options)
    }
}

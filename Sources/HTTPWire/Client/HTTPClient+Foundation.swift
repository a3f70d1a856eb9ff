// HTTPClient+Foundation: the same calls taking FoundationEssentials' `URL` and `Data` beside strings and
// bytes (client layer).
//
// HTTPWire's own URL type is `TargetURL` (parsed once, normalised, credentials taken out), and its entry
// points take the text of a URL so that a relative one can be resolved against the base URL. App code often
// holds a `URL` already; these overloads pass its `absoluteString` on, so both spellings behave exactly
// alike. Nothing here has behaviour of its own.

import HTTPWireCodec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HTTPRequest {
    /// A request to a Foundation `URL` (its `absoluteString`; a relative `URL` resolves against the client's
    /// base URL like a relative string).
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.test/v1/items")!,
    ///                           body: .data(Data(#"{"name":"box"}"#.utf8)))
    /// ```
    public init(
        method: Method = .get, url: URL, queryItems: [QueryItem] = [], fields: HTTPFields = [:],
        body: RequestBody = .empty, options: RequestOptions = RequestOptions()
    ) {
        self.init(
            method: method, url: url.absoluteString, queryItems: queryItems, fields: fields, body: body,
            options: options)
    }
}

extension HTTPClient {
    /// `GET url`.
    @concurrent public func get(
        _ url: URL, query: [QueryItem] = [], fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await get(url.absoluteString, query: query, fields: fields, options: options)
    }

    /// `HEAD url`.
    @concurrent public func head(_ url: URL, fields: HTTPFields = [:], options: RequestOptions = RequestOptions())
        async throws
        -> HTTPResponse
    {
        try await head(url.absoluteString, fields: fields, options: options)
    }

    /// `OPTIONS url`.
    @concurrent public func options(_ url: URL, fields: HTTPFields = [:], options: RequestOptions = RequestOptions())
        async throws -> HTTPResponse
    {
        try await self.options(url.absoluteString, fields: fields, options: options)
    }

    /// `DELETE url`.
    @concurrent public func delete(_ url: URL, fields: HTTPFields = [:], options: RequestOptions = RequestOptions())
        async throws -> HTTPResponse
    {
        try await delete(url.absoluteString, fields: fields, options: options)
    }

    /// `POST url` with `value` as JSON.
    @concurrent public func post(
        _ url: URL, json value: some Encodable & Sendable, fields: HTTPFields = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await post(url.absoluteString, json: value, fields: fields, options: options)
    }

    /// `PUT url` with `value` as JSON.
    @concurrent public func put(
        _ url: URL, json value: some Encodable & Sendable, fields: HTTPFields = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await put(url.absoluteString, json: value, fields: fields, options: options)
    }

    /// `PATCH url` with `value` as JSON.
    @concurrent public func patch(
        _ url: URL, json value: some Encodable & Sendable, fields: HTTPFields = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await patch(url.absoluteString, json: value, fields: fields, options: options)
    }

    /// `POST url` with a form body.
    @concurrent public func post(
        _ url: URL, form: URLEncodedForm, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await post(url.absoluteString, form: form, fields: fields, options: options)
    }

    /// `POST url` with any body (``RequestBody/data(_:)`` for `Data`).
    @concurrent public func post(
        _ url: URL, body: RequestBody, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await post(url.absoluteString, body: body, fields: fields, options: options)
    }

    /// `PUT url` with any body.
    @concurrent public func put(
        _ url: URL, body: RequestBody, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await put(url.absoluteString, body: body, fields: fields, options: options)
    }

    /// `PATCH url` with any body.
    @concurrent public func patch(
        _ url: URL, body: RequestBody, fields: HTTPFields = [:], options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await patch(url.absoluteString, body: body, fields: fields, options: options)
    }

    /// Downloads `url` to the file at `destination` (a file URL, or a path as a URL).
    public func download(
        from url: URL, to destination: URL, options: DownloadOptions = DownloadOptions()
    ) -> Download {
        download(from: url.absoluteString, to: destination.path(percentEncoded: false), options: options)
    }
}

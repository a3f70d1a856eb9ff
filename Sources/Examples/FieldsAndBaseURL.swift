// FieldsAndBaseURL: a client with a base URL, so calls name paths relative to it (RFC 3986 §5.2), and
// default fields sent with every request, which a request's own fields add to or replace (example: the
// public API only).

import HTTPWire

/// Example: default fields and a base URL on the configuration, one field per request.
package enum FieldsAndBaseURL {
    /// `RunExample fields-and-base-url http://127.0.0.1:8080/` (the /echo route answers with the fields it
    /// received). `configuration` is the starting point (the demo's logs heads); `baseURL` ends in `/`.
    package static func run(
        baseURL: String, configuration: ClientConfiguration = ClientConfiguration(),
        log: (String) -> Void = { print($0) }
    ) async throws -> HTTPResponse {
        var configuration = configuration
        configuration.baseURL = baseURL  // end with "/" so relative paths go below it
        configuration.defaultFields["Accept"] = "application/json"
        configuration.defaultFields["User-Agent"] = "photo-sync/2.1"  // replaces HTTPWire's default
        let client = HTTPClient(configuration: configuration)

        var request = HTTPRequest(url: "echo")  // resolved against the base URL: <baseURL>echo
        request.fields["Authorization"] = "Bearer example-token"  // this request only
        let response = try await client.send(request)
        await client.shutdown()
        log("\(response.status.rawValue) from \(response.url)")
        return response
    }
}

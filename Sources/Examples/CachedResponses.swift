// CachedResponses: a client with an HTTP cache asks for one URL three times — stored, reused, then
// revalidated on a pull to refresh (example: the public API only). Run by `RunExample cached-responses` and,
// checked, by `wire demo`.

import HTTPWire

/// Example: what `ClientConfiguration.cache` saves, request by request.
package enum CachedResponses {
    /// `RunExample cached-responses URL`: three GETs of `url` through a cache; returns where each response
    /// came from. Against a server whose response is fresh for a while (`Cache-Control: max-age`, or an old
    /// `Last-Modified`) the statuses are miss, hit, revalidated.
    package static func run(url: String, log: (String) -> Void = { print($0) }) async throws -> [CacheStatus] {
        var configuration = ClientConfiguration()
        configuration.cache = HTTPCache(capacity: 4 * 1024 * 1024)
        configuration.validation = .successful
        let client = HTTPClient(configuration: configuration)
        var statuses: [CacheStatus] = []
        // 1. Nothing stored: the server answers, and the response is kept if HTTP allows it.
        let first = try await client.get(url)
        statuses.append(first.cacheStatus)
        log("first:  \(first.status.rawValue), \(first.body.count) bytes, \(first.cacheStatus)")
        // 2. Fresh: the stored response, no request sent; `Age` says how old it is.
        let second = try await client.get(url)
        statuses.append(second.cacheStatus)
        log("second: \(second.cacheStatus), Age \(second.fields["Age"] ?? "-")")
        // 3. A pull to refresh: `Cache-Control: no-cache` makes the client ask the server, with the stored
        //    ETag in If-None-Match; a 304 means "unchanged", and the stored body is used.
        let refreshed = try await client.send(HTTPRequest(url: url, fields: ["Cache-Control": "no-cache"]))
        statuses.append(refreshed.cacheStatus)
        log(
            "reload: \(refreshed.cacheStatus), \(refreshed.body.count) bytes, same body: \(refreshed.body == first.body)"
        )
        await client.shutdown()
        return statuses
    }
}

// TestRoute: one route a test adds to its server — which requests it answers (a method and a path) and
// how (edge layer, HTTPWireTesting).
//
// A path is matched against the request's path as sent, without the query: exactly (`/users/42`), or as a
// prefix when it ends in `*` (`/users/*`). A route answers with a fixed response, with a list of responses
// taken in turn (the last one repeats — the shape of "503, 503, then 200" that retry tests need), or with
// a closure that sees the request. Values only; `TestServer` installs them.

import HTTPWire
import HTTPWireTransport

/// A route of a ``TestServer``.
///
/// ```swift
/// let routes = [
///     TestRoute(.get, "/users/42", try .json(User(id: 42, name: "Ada"))),
///     TestRoute(.get, "/flaky", responses: [TestResponse(status: 503, fields: ["Retry-After": "0"]), .text("ok")]),
///     TestRoute(.post, "/users") { request in try .json(request.decode(User.self), status: 201) },
/// ]
/// ```
public struct TestRoute: Sendable {
    /// The method answered; nil answers any method.
    public let method: Method?
    /// The path answered: exact, or a prefix when it ends in `*`.
    public let path: String
    let respond: @Sendable (TestRequest) async throws -> TestResponse

    /// A route answering with whatever `respond` returns for each request.
    public init(
        _ method: Method? = nil, _ path: String, respond: @escaping @Sendable (TestRequest) async throws -> TestResponse
    ) {
        self.method = method
        self.path = path
        self.respond = respond
    }

    /// A route answering every request with `response`.
    public init(_ method: Method? = nil, _ path: String, _ response: TestResponse) {
        self.init(method, path) { _ in response }
    }

    /// A route answering the first request with `responses[0]`, the second with `responses[1]`, and every
    /// later one with the last.
    public init(_ method: Method? = nil, _ path: String, responses: [TestResponse]) {
        precondition(!responses.isEmpty, "a route needs at least one response")
        let served = LockedState(0)
        self.init(method, path) { _ in
            let index = served.withLock { count in
                defer { count += 1 }
                return min(count, responses.count - 1)
            }
            return responses[index]
        }
    }

    /// Whether this route answers `method` and `target` (the path before any `?`).
    func matches(method requested: Method, target: String) -> Bool {
        if let method, method != requested { return false }
        let requestedPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if path.hasSuffix("*") { return requestedPath.hasPrefix(path.dropLast()) }
        return requestedPath == path
    }
}

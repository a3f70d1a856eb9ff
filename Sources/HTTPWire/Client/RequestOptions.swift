// RequestOptions: what one request may set differently from its client — timeouts, redirects, retries,
// validation, credentials and JSON coders (client layer).
//
// Every field is optional and nil means "the client's": a request overrides its client field by field, so a
// long upload can have a five-minute total timeout while every other request keeps the client's thirty
// seconds, without a second `HTTPClient` (and a second pool). `RequestOptions.Effective` is the merge, made
// once per request; nothing below the client ever sees a `RequestOptions`. Plain values: no I/O here.

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Settings of one request that override its client's ``ClientConfiguration``, field by field.
///
/// ```swift
/// var request = HTTPRequest(method: .put, url: "backups/db.tar", body: .file(path: "/var/backups/db.tar"))
/// request.options.timeouts.total = .seconds(300)      // this upload only; the client keeps its own
/// request.options.validation = .successful           // a 4xx or 5xx throws HTTPWireError.unacceptableResponse
/// let response = try await client.send(request)
/// ```
///
/// The same value rides on ``HTTPRequest/options`` (plain requests and ``HTTPClient/upload(_:)``) and on
/// ``DownloadOptions/requestOptions`` (downloads).
public struct RequestOptions: Sendable {
    /// Timeouts for this request; each nil field is the client's (``ClientConfiguration/timeouts``).
    public var timeouts = Timeouts()
    /// Which redirects this request follows; nil is the client's ``ClientConfiguration/redirects``.
    public var redirects: RedirectPolicy?
    /// How this request is retried; nil is the client's ``ClientConfiguration/retry``.
    public var retry: RetryPolicy?
    /// Which responses this request accepts; nil is the client's ``ClientConfiguration/validation``, and
    /// ``ResponseValidation/acceptingAll`` turns a client's validation off for this request.
    public var validation: ResponseValidation?
    /// Credentials for this request, sent as `Authorization` to the request's own origin only; nil is the
    /// client's ``ClientConfiguration/authorization``. An `Authorization` field set on the request wins.
    public var authorization: Authorization?
    /// Encodes this request's JSON body in the shortcuts (`post(_:json:)`, ...); nil is the client's.
    public var jsonEncoder: JSONEncoder?
    /// Decodes the response in ``HTTPResponse/decode(_:using:)``; nil is the client's.
    public var jsonDecoder: JSONDecoder?
    /// Whether this request asks for and decodes gzip and deflate bodies, and within which limits; nil is
    /// the client's ``ClientConfiguration/contentDecoding``. ``ContentDecoding/off`` for the bytes as sent.
    public var contentDecoding: ContentDecoding?
    /// False when the request must not offer `Accept-Encoding` even with decoding on: downloads, whose
    /// stored bytes must be the resource's own so a Range can resume them (RFC 9110 §14).
    var offersContentCodings = true

    /// No overrides: the client's settings apply.
    public init() {}

    /// The options most requests want: a total timeout and a validation rule.
    ///
    /// ```swift
    /// let user = try await client.get("users/42", options: RequestOptions(timeout: .seconds(5), validation: .successful))
    ///     .decode(User.self)
    /// ```
    public init(timeout total: Duration? = nil, validation: ResponseValidation? = nil) {
        self.timeouts.total = total
        self.validation = validation
    }

    /// Overrides of ``ClientConfiguration/Timeouts``; nil keeps the client's value.
    public struct Timeouts: Sendable, Hashable {
        /// Resolving, connecting and the TLS handshake, per connection attempt this request starts.
        public var connect: Duration?
        /// The longest wait for the response head once the request has been sent.
        public var head: Duration?
        /// The longest wait for any progress once connected.
        public var idle: Duration?
        /// The whole request: redirects, retries, their waits and the body.
        public var total: Duration?
        /// How long to wait for `100 Continue` before sending the body anyway.
        public var expectContinue: Duration?

        /// No overrides.
        public init() {}
    }
}

extension RequestOptions {
    /// True when no field is set, so every setting is the configuration's (``HTTPClient`` then uses the
    /// settings it made once). Every field that ``Effective`` reads must be checked here.
    var overridesNothing: Bool {
        timeouts.connect == nil && timeouts.head == nil && timeouts.idle == nil && timeouts.total == nil
            && timeouts.expectContinue == nil && redirects == nil && retry == nil && validation == nil
            && authorization == nil && jsonDecoder == nil && contentDecoding == nil && offersContentCodings
    }

    /// A request's options merged with its client's configuration: what the request actually runs with.
    /// A class, never changed, built per request that overrides something (once per client otherwise): the
    /// request's async functions each keep it across their suspension points, and as a 257-byte struct it
    /// was a slot of that size in every one of their frames (allocated per request) and a copy, with a
    /// retain per field, at every call.
    final class Effective: Sendable {
        let connectTimeout: Duration
        let headTimeout: Duration?
        let idleTimeout: Duration
        let totalTimeout: Duration?
        let expectContinueTimeout: Duration
        let redirects: RedirectPolicy
        let retry: RetryPolicy
        let validation: ResponseValidation?
        let authorization: Authorization?
        let jsonDecoder: JSONDecoder
        let contentDecoding: ContentDecoding
        let offersContentCodings: Bool

        /// Each field of `options` when set, else `configuration`'s.
        init(_ options: RequestOptions, _ configuration: ClientConfiguration) {
            let timeouts = configuration.timeouts
            connectTimeout = options.timeouts.connect ?? timeouts.connect
            headTimeout = options.timeouts.head ?? timeouts.head
            idleTimeout = options.timeouts.idle ?? timeouts.idle
            totalTimeout = options.timeouts.total ?? timeouts.total
            expectContinueTimeout = options.timeouts.expectContinue ?? timeouts.expectContinue
            redirects = options.redirects ?? configuration.redirects
            retry = options.retry ?? configuration.retry
            validation = options.validation ?? configuration.validation
            authorization = options.authorization ?? configuration.authorization
            jsonDecoder = options.jsonDecoder ?? configuration.jsonDecoder
            contentDecoding = options.contentDecoding ?? configuration.contentDecoding
            offersContentCodings = options.offersContentCodings
        }
    }
}

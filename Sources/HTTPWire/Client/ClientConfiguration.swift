// ClientConfiguration: everything an HTTPClient is set up with, each default with its reason.
// Client layer: plain values; nothing here opens a socket.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How an ``HTTPClient`` behaves: base URL, default fields, timeouts, redirects, TLS, pool limits, logging.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.baseURL = "https://api.example.test/v1/"
/// configuration.defaultFields["Accept"] = "application/json"
/// configuration.timeouts.total = .seconds(30)
/// let client = HTTPClient(configuration: configuration)
/// ```
public struct ClientConfiguration: Sendable {
    /// The URL that relative request URLs are resolved against (RFC 3986 §5.2), or nil for absolute URLs only.
    /// End it with `/` when relative paths should go below it: `https://h/v1/` + `users` = `https://h/v1/users`.
    public var baseURL: String?

    /// Fields added to every request unless the request sets the same name itself. Default: a `User-Agent`,
    /// which RFC 9110 §10.1.5 says a user agent should send.
    public var defaultFields: HTTPFields = ["User-Agent": "HTTPWire/0.1"]

    /// Timeouts for each phase of a request.
    public var timeouts = Timeouts()

    /// Which redirects are followed, and how many.
    public var redirects = RedirectPolicy()

    /// How the server's certificate is checked and which CA certificates are trusted.
    public var tls = TLSConfiguration()

    /// Connection pool limits.
    public var pool = PoolLimits()

    /// Which proxy requests go through. Default ``ProxyConfiguration/environment``: the proxies named by
    /// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`, read as curl reads them (never upper-case
    /// `HTTP_PROXY`) when the configuration is made — curl and URLSession both use the machine's proxy
    /// settings by default. ``ProxyConfiguration/none`` for never.
    public var proxy = ProxyConfiguration.environment

    /// Addresses to connect to instead of asking DNS, keyed by `"host:port"` — curl's `--resolve`. The
    /// request still names the URL's host: in `Host`, in TLS's SNI and in the certificate check (RFC 9110
    /// §4.3.4), so a test can send `https://api.example.test/` to a local server that holds that name's
    /// certificate, and a production URL can be pinned to one machine of a cluster.
    ///
    /// ```swift
    /// configuration.addressOverrides["api.example.test:443"] = ["127.0.0.1", "::1"]
    /// ```
    ///
    /// Keys are the URL's host (case does not matter; an IPv6 literal in brackets, `"[::1]:8443"`) and
    /// port, the default port included. Values are IPv4 or IPv6 literals, tried in order as DNS answers are
    /// (Happy Eyeballs, RFC 8305); a value that is not one fails the request with
    /// ``HTTPWireError/couldNotResolveHost(_:)``. Connections through a proxy are not affected: the proxy
    /// resolves the name. Default empty.
    public var addressOverrides: [String: [String]] = [:]

    /// Another host and port to connect to for a URL's `"host:port"` — curl's `--connect-to`. Only the
    /// connection goes elsewhere: `Host`, SNI and the certificate check keep the URL's name, so one machine
    /// of a cluster, a staging server or a local port can answer for the production name.
    ///
    /// ```swift
    /// configuration.hostOverrides["api.example.test:443"] = "node-3.internal.test:8443"
    /// ```
    ///
    /// Either half of a key may leave out its host (`":443"`: any host on that port) or its port
    /// (`"api.example.test:"`: any port), the most specific key winning; a value may leave out either half
    /// to keep the URL's (`"node-3.internal.test:"`). An IPv6 address goes in brackets. The new host is
    /// resolved as any name is, or taken from ``addressOverrides`` when that names it. Connections through
    /// a proxy are not affected. Default empty.
    public var hostOverrides: [String: String] = [:]

    /// A Unix-domain socket file every request goes through instead of the network — curl's
    /// `--unix-socket`. Local daemons speak HTTP/1.1 on such files: Docker's API on `/var/run/docker.sock`,
    /// a sidecar, a test server nobody else can reach.
    ///
    /// ```swift
    /// var configuration = ClientConfiguration()
    /// configuration.unixSocketPath = "/var/run/docker.sock"
    /// let client = HTTPClient(configuration: configuration)
    /// let version = try await client.get("http://localhost/version")
    /// ```
    ///
    /// The URL still says what is asked and of whom: its path is the request target, its host the `Host`
    /// field (RFC 9112 §3.2 requires one; daemons accept any), and for `https` the name TLS checks. Every
    /// connection of the client dials the socket, redirects included, and proxies are not used (the socket
    /// is the route; a `http_proxy` in the environment must not take a Docker call elsewhere).
    /// ``addressOverrides`` is then ignored. A missing file, or one nobody listens on, fails the request
    /// with ``HTTPWireError/couldNotConnect(host:port:errno:)`` naming the path (exit 7). Default nil.
    public var unixSocketPath: String?

    /// Which IP version connections use — curl's `-4` and `-6`. Default ``AddressFamily/any``: every address
    /// a name has, IPv6 and IPv4 raced as RFC 8305 describes. ``AddressFamily/ipv4`` or
    /// ``AddressFamily/ipv6`` keeps only that family's addresses — of the origin, of a proxy, and of
    /// ``addressOverrides`` — for a network where the other one is broken, or to test one path. A host with
    /// no address of the family (an IPv6 literal under `.ipv4`) fails with
    /// ``HTTPWireError/couldNotResolveHost(_:)`` (exit 6).
    public var addressFamily: AddressFamily = .any

    /// The most bytes ``HTTPClient/send(_:)`` collects into memory for one body. Default 64 MiB: large
    /// enough for any JSON document, small enough that a hostile endless body cannot exhaust memory. Use
    /// ``HTTPClient/stream(_:)`` or a download for larger bodies.
    public var maxCollectedBodyBytes: Int = 64 * 1024 * 1024

    /// Called with each request and response head as sent and received, credentials redacted
    /// (the replacement for the old utilities' `debugLog`). Nil logs nothing.
    public var logger: (@Sendable (HTTPLogEvent) -> Void)?

    // MARK: Request defaults (each one can be overridden per request with `HTTPRequest.options`)

    /// How requests are retried. Default ``RetryPolicy/none``, as curl (`--retry 0`) and URLSession do: a
    /// retry turns a fast failure into a slow one, so a caller asks for it. ``RetryPolicy/idempotent`` is
    /// the usual choice: GET, HEAD, PUT, DELETE retried on 502, 503, 504 and dropped connections.
    public var retry: RetryPolicy = .none
    /// Which responses are accepted; others throw ``HTTPWireError/unacceptableResponse(_:)``. Default nil:
    /// every response is returned, whatever its status, as the wire delivered it.
    public var validation: ResponseValidation?
    /// Credentials sent with every request to the request's own origin (never across a redirect to
    /// another one). Default nil. `user:password@` in a URL and ``RequestOptions/authorization`` win.
    public var authorization: Authorization?
    /// Encodes JSON bodies in the shortcuts (`post(_:json:)`, `put`, `patch`); set its date and key
    /// strategies here once for every request. Default: a plain `JSONEncoder`.
    public var jsonEncoder = JSONEncoder()
    /// Decodes responses in ``HTTPResponse/decode(_:using:)``. Default: a plain `JSONDecoder`.
    public var jsonDecoder = JSONDecoder()
    /// Whether gzip and deflate bodies are asked for (`Accept-Encoding`) and decoded, with the limits that
    /// stop a decompression bomb. Default ``ContentDecoding/off``, as in curl: bodies are the bytes the
    /// server sent unless asked for. See ``ContentDecoding``.
    public var contentDecoding = ContentDecoding.off
    /// Request adapters and response handlers, in order: each adapter sees every request before it is sent
    /// (every redirect hop and retry), each handler every response head. Default none. See ``HTTPMiddleware``.
    public var middleware: [any HTTPMiddleware] = []
    /// The cookies requests send and responses set (RFC 6265), or nil for none — the default, as in curl
    /// (cookies only with `-b`/`-c`). URLSession keeps a shared store on by default; HTTPWire does not,
    /// because a library inside a server would otherwise carry one user's session into another's request
    /// and there is no "the user" to share a store with. Set a jar per client (or share one between clients
    /// on purpose). The jar sees every head — 1xx, redirects, the final one — and each redirect hop gets
    /// the cookies of its own URL. See ``CookieJar``.
    public var cookieJar: CookieJar?
    /// A private HTTP cache (RFC 9111) for the GET responses ``HTTPClient/send(_:)`` collects, or nil for
    /// none — the default, as in curl. URLSession has one by default; HTTPWire asks for it, for the same
    /// reason as ``cookieJar``: what one user was served must not answer another's request. See
    /// ``HTTPCache``.
    public var cache: HTTPCache?

    /// The defaults described on each property.
    public init() {}

    /// The IP versions a client connects with (``ClientConfiguration/addressFamily``).
    public enum AddressFamily: Sendable, Hashable {
        /// IPv6 and IPv4, whichever connects first (RFC 8305).
        case any
        /// IPv4 addresses only (`-4`).
        case ipv4
        /// IPv6 addresses only (`-6`).
        case ipv6
    }

    /// Deadlines for the phases of a request. Each expiry is reported as `HTTPWireError.timedOut(phase)`.
    public struct Timeouts: Sendable, Hashable {
        /// Resolving, connecting and the TLS handshake, per connection attempt. Default 10 s, like a browser's
        /// connect timeout. Waiting in the pool's queue for a busy origin's connection is not connecting: only
        /// `total` bounds that.
        public var connect: Duration = .seconds(10)
        /// The longest wait for any progress (a byte sent or received) once connected. Default 30 s.
        public var idle: Duration = .seconds(30)
        /// The longest wait for the response head once the request is sent (time to first byte, including
        /// interim 1xx responses). Default nil: the idle timeout applies to that wait too. Set it for an
        /// endpoint that thinks for minutes before answering, without loosening the idle timeout of bodies.
        public var head: Duration?
        /// The whole request including redirects and the body, or nil for none (the default: a large
        /// download may legitimately take hours; the idle timeout catches a stalled one).
        public var total: Duration?
        /// How long to wait for `100 Continue` before sending the body anyway (RFC 9110 §10.1.1 says a
        /// client should not wait indefinitely). Default 1 s, curl's value.
        public var expectContinue: Duration = .seconds(1)

        /// The defaults described on each property.
        public init() {}
    }

    /// Limits of the keep-alive pool.
    public struct PoolLimits: Sendable, Hashable {
        /// Connections open at once to one origin. Default 8: more than browsers' 6, enough to keep a
        /// server busy without looking like an attack.
        public var maxConnectionsPerOrigin: Int = 8
        /// Idle connections kept per origin. Default 8.
        public var maxIdleConnectionsPerOrigin: Int = 8
        /// How long an idle connection is kept. Default 60 s: servers close idle connections after
        /// 5–75 s (nginx 75 s); reusing one the server is closing fails, and is retried only when safe.
        public var idleTimeout: Duration = .seconds(60)

        /// The defaults described on each property.
        public init() {}
    }
}

/// One line of the client's log: a head as sent or received, with credentials redacted.
public struct HTTPLogEvent: Sendable, Hashable, CustomStringConvertible {
    /// What the line is about.
    public enum Kind: String, Sendable, Hashable {
        /// A connection was opened to an origin.
        case connected
        /// A pooled connection was reused.
        case reused
        /// A request head as written to the wire.
        case requestHead
        /// A response head as received (interim 1xx heads included).
        case responseHead
        /// A redirect is being followed.
        case redirect
        /// A request is retried on a new connection.
        case retry
    }

    /// What the line is about.
    public var kind: Kind
    /// The text: heads are shown as on the wire, one field per line, with `Authorization`, `Cookie`,
    /// `Set-Cookie` and `Proxy-Authorization` values replaced by `[redacted]`.
    public var text: String

    /// Creates a log event.
    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }

    /// The line's text, as a logger would print it.
    public var description: String { text }

    /// Field names whose values never reach a log.
    static let redactedNames = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Renders a head's fields for the log, redacting credentials.
    static func render(startLine: String, fields: HTTPFields) -> String {
        var text = startLine
        for field in fields {
            let secret = redactedNames.contains { HTTPFields.namesMatch($0, field.name) }
            text += "\n\(field.name): \(secret ? "[redacted]" : field.value)"
        }
        return text
    }
}

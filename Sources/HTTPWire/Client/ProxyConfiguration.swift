// ProxyConfiguration: which proxy a client's requests go through, as the user says it (client layer).
//
// The settings are curl's: a proxy URL for http:// requests, one for https:// requests, one for both when
// the scheme's own is unset, and a list of hosts that go direct. `.environment` reads them from the
// variables curl reads, with curl's exceptions: `http_proxy` only in lower case, because in a CGI program
// an upper-case `HTTP_PROXY` can come from a request's `Proxy:` header (httpoxy, CVE-2016-5385); the others
// in either case, lower case first. Empty values count as unset. Plain values: the URLs are parsed when a
// client is created (`ProxyRoutes`), and nothing here opens a connection.
//
// The default of `ClientConfiguration.proxy` is `.environment`: curl and libcurl read these variables by
// default and URLSession follows the system's proxy settings, so a program embedding HTTPWire behaves as
// the other clients on the same machine do. A program that must never use a proxy sets `.none`.

#if canImport(Glibc)
    import Glibc
#endif

/// The proxies a client uses, in curl's terms.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.proxy = ProxyConfiguration(allProxy: "http://proxy.example.test:3128", noProxy: "localhost,.internal")
/// configuration.proxy = .none          // never a proxy, whatever the environment says
/// ```
///
/// A proxy URL is `[scheme://][user[:password]@]host[:port]` with the scheme `http` (the default), `socks5`
/// (names resolved here), `socks5h` (names resolved by the proxy), `socks4` (IPv4 addresses resolved here)
/// or `socks4a` (names resolved by the proxy), and the port 1080 by default, as curl has it. `https://`
/// proxies (TLS to the proxy itself) are not supported.
public struct ProxyConfiguration: Sendable, Hashable {
    /// A user name and password for the proxy, overriding those in its URL (curl's `-U user:password`).
    public struct Credentials: Sendable, Hashable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Credentials from their two parts.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// The proxy for `http://` URLs (curl's `http_proxy`). Nil: ``allProxy``.
    public var httpProxy: String?
    /// The proxy for `https://` URLs (curl's `https_proxy`). Nil: ``allProxy``.
    public var httpsProxy: String?
    /// The proxy for either scheme when its own is nil (curl's `all_proxy`, and `-x`).
    public var allProxy: String?
    /// Hosts reached directly, comma-separated (curl's `no_proxy`, and `--noproxy`): `*` for every host, a
    /// name for itself and every name below it (`example.test` and `.example.test` both match
    /// `api.example.test`), an address literal for itself, an address range in CIDR notation (`10.0.0.0/8`,
    /// `fd00::/8`) for the address literals in it, and `host:port` for that port only.
    public var noProxy: String?
    /// Credentials for every proxy used, replacing any in the URLs. Default nil.
    public var credentials: Credentials?

    /// The given proxies; everything left out is unset.
    public init(
        httpProxy: String? = nil, httpsProxy: String? = nil, allProxy: String? = nil, noProxy: String? = nil,
        credentials: Credentials? = nil
    ) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.allProxy = allProxy
        self.noProxy = noProxy
        self.credentials = credentials
    }

    /// No proxy, whatever the environment says.
    public static var none: ProxyConfiguration { ProxyConfiguration() }

    /// The proxies named by this process's environment, read now (see ``environment(_:)``).
    public static var environment: ProxyConfiguration {
        let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        var variables: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return environment(variables)
    }

    /// The proxies named by `variables` as curl reads them: `http_proxy` (never `HTTP_PROXY`: httpoxy),
    /// `https_proxy` or `HTTPS_PROXY`, `all_proxy` or `ALL_PROXY`, `no_proxy` or `NO_PROXY`; the lower-case
    /// name wins when both are set, and an empty value is no value.
    public static func environment(_ variables: [String: String]) -> ProxyConfiguration {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { variables[$0] }.first { !$0.isEmpty }
        }
        return ProxyConfiguration(
            httpProxy: value("http_proxy"), httpsProxy: value("https_proxy", "HTTPS_PROXY"),
            allProxy: value("all_proxy", "ALL_PROXY"), noProxy: value("no_proxy", "NO_PROXY"))
    }
}

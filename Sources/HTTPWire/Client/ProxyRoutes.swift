// ProxyRoutes: a client's proxy settings parsed once, and the proxy each request URL goes through
// (client layer).
//
// Built when the client is created, from `ClientConfiguration.proxy`: each proxy URL parsed into a
// `ProxyEndpoint` (with `credentials`, when given, replacing the URL's), the bypass list into a
// `NoProxyList`. For every request — every hop of a redirect chain, since a redirect may change scheme or
// host — `proxy(for:)` says which proxy, if any, carries it: the scheme's own (`httpProxy`, `httpsProxy`),
// else `allProxy`, unless the host is on the bypass list. The answer becomes part of the pool key. Nothing
// here connects.

import HTTPWireCodec

/// Which proxy carries which request.
///
/// ```swift
/// let routes = try ProxyRoutes(ProxyConfiguration(allProxy: "socks5h://127.0.0.1:1080", noProxy: "localhost"))
/// routes.proxy(for: try TargetURL("https://example.test/"))   // socks5h://127.0.0.1:1080
/// routes.proxy(for: try TargetURL("http://localhost:8080/"))  // nil: direct
/// ```
package struct ProxyRoutes: Sendable {
    /// The proxy for http:// URLs, nil for direct.
    private let http: ProxyEndpoint?
    /// The proxy for https:// URLs, nil for direct.
    private let https: ProxyEndpoint?
    /// Hosts that always go direct.
    private let bypass: NoProxyList

    /// No proxy at all.
    package static let direct = ProxyRoutes(http: nil, https: nil, bypass: NoProxyList(nil))

    private init(http: ProxyEndpoint?, https: ProxyEndpoint?, bypass: NoProxyList) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// Parses `configuration`. Throws `HTTPWireError.invalidURL` for a proxy URL that cannot be used; an
    /// empty string counts as unset.
    package init(_ configuration: ProxyConfiguration) throws(HTTPWireError) {
        func endpoint(_ text: String?) throws(HTTPWireError) -> ProxyEndpoint? {
            guard let text, !text.isEmpty else { return nil }
            let parsed = try ProxyEndpoint(parsing: text)
            guard let credentials = configuration.credentials else { return parsed }
            return parsed.replacingCredentials(
                ProxyEndpoint.Credentials(user: credentials.user, password: credentials.password))
        }
        let all = try endpoint(configuration.allProxy)
        self.init(
            http: try endpoint(configuration.httpProxy) ?? all, https: try endpoint(configuration.httpsProxy) ?? all,
            bypass: NoProxyList(configuration.noProxy))
    }

    /// The proxy that carries a request for `url`, or nil when it goes direct.
    package func proxy(for url: TargetURL) -> ProxyEndpoint? {
        let proxy: ProxyEndpoint?
        switch url.scheme {
        case .http: proxy = http
        case .https: proxy = https
        }
        guard let proxy, !bypass.matches(host: url.host, port: url.port) else { return nil }
        return proxy
    }
}

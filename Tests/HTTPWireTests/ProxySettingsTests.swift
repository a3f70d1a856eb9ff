// Proxy settings without a network: the environment as curl reads it, no_proxy matching, proxy URL parsing,
// which proxy each URL takes, the pool key, the CONNECT request's bytes, and public-key pin parsing.

import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireCodec

@Suite(.timeLimit(.scaledMinutes(1))) struct ProxySettingsTests {
    @Test("the environment is read as curl reads it: lower case first, never upper-case HTTP_PROXY")
    func environment() {
        let all = ProxyConfiguration.environment([
            "http_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper-s:2", "https_proxy": "http://lower-s:3",
            "ALL_PROXY": "socks5://all:4", "NO_PROXY": "upper.test", "no_proxy": "lower.test",
        ])
        #expect(all.httpProxy == "http://lower:1")
        #expect(all.httpsProxy == "http://lower-s:3")
        #expect(all.allProxy == "socks5://all:4")
        #expect(all.noProxy == "lower.test")

        // httpoxy (CVE-2016-5385): in CGI, HTTP_PROXY can come from a request's Proxy: header.
        let upper = ProxyConfiguration.environment([
            "HTTP_PROXY": "http://attacker:1", "HTTPS_PROXY": "http://s:2", "NO_PROXY": "a.test",
        ])
        #expect(upper.httpProxy == nil)
        #expect(upper.httpsProxy == "http://s:2")
        #expect(upper.noProxy == "a.test")

        let empty = ProxyConfiguration.environment(["http_proxy": "", "all_proxy": ""])
        #expect(empty == .none)
    }

    @Test(
        "no_proxy matches whole-label suffixes, addresses, address ranges (CIDR), ports and *",
        arguments: [
            ("example.test", "example.test", 80, true), ("example.test", "api.example.test", 443, true),
            (".example.test", "api.example.test", 443, true), (".example.test", "example.test", 443, true),
            ("example.test", "badexample.test", 80, false), ("example.test", "example.test.evil", 80, false),
            ("EXAMPLE.test.", "example.test", 80, true), ("127.0.0.1", "127.0.0.1", 8080, true),
            ("127.0.0.1", "127.0.0.2", 8080, false), ("::1", "::1", 80, true), ("[::1]", "::1", 80, true),
            ("[::1]:8080", "::1", 8080, true), ("[::1]:8080", "::1", 80, false),
            ("cache.test:8080", "cache.test", 8080, true), ("cache.test:8080", "cache.test", 80, false),
            ("*", "anything.test", 1, true), ("a.test, *", "b.test", 1, true), (" a.test ,b.test", "b.test", 1, true),
            ("", "a.test", 80, false), ("*.test", "a.test", 80, false),
            // Address ranges (CIDR), for address literals only, as curl reads them.
            ("192.168.0.0/16", "192.168.4.20", 80, true), ("192.168.0.0/16", "192.169.0.1", 80, false),
            ("10.0.0.0/8, example.test", "10.255.255.255", 1, true), ("10.1.2.3/32", "10.1.2.3", 1, true),
            ("10.1.2.3/32", "10.1.2.4", 1, false), ("172.16.0.0/12", "172.31.0.1", 1, true),
            ("172.16.0.0/12", "172.32.0.1", 1, false), ("0.0.0.0/0", "203.0.113.9", 1, true),
            ("0.0.0.0/0", "::1", 1, false), ("0.0.0.0/0", "example.test", 1, false),
            ("fd00::/8", "fd12:3456::1", 1, true), ("[fd00::]/8", "fe80::1", 1, false),
            ("2001:db8::/33", "2001:db8:7fff::1", 1, true), ("2001:db8::/33", "2001:db8:8000::1", 1, false),
            ("10.0.0.0/33", "10.0.0.1", 1, false), ("10.0.0.0/x", "10.0.0.1", 1, false),
            ("name.test/8", "name.test", 1, false),
        ] as [(String, String, Int, Bool)])
    func noProxy(list: String, host: String, port: Int, expected: Bool) {
        #expect(NoProxyList(list).matches(host: host, port: port) == expected)
    }

    @Test("proxy URLs parse in curl's spelling, port 1080 by default, credentials percent-decoded")
    func proxyURLs() throws {
        let plain = try ProxyEndpoint(parsing: "proxy.test")
        #expect(plain == ProxyEndpoint(kind: .http, host: "proxy.test", port: 1080))
        let full = try ProxyEndpoint(parsing: "HTTP://alice:s%40fe%3Ax@Proxy.TEST:3128/")
        #expect(full.kind == .http && full.host == "proxy.test" && full.port == 3128)
        #expect(full.credentials == ProxyEndpoint.Credentials(user: "alice", password: "s@fe:x"))
        #expect(full.description == "http://alice@proxy.test:3128")
        // RFC 7617 §2: base64 of "user:password" in UTF-8.
        #expect(full.basicAuthorization == "Basic YWxpY2U6c0BmZTp4")
        let socks = try ProxyEndpoint(parsing: "socks5h://[::1]:1081")
        #expect(socks.kind == .socks5h && socks.host == "::1" && socks.port == 1081)
        #expect(try ProxyEndpoint(parsing: "socks5://u@10.0.0.1").credentials == .init(user: "u", password: ""))
        #expect(try ProxyEndpoint(parsing: "SOCKS4://ada@p").kind == .socks4)
        #expect(try ProxyEndpoint(parsing: "socks4a://p:1").kind == .socks4a)
        for bad in [
            "https://p:1", "socks3://p:1", "http://p:1/path", "http://p:0", "http://p:99999", "http://", "http://p:x",
        ] {
            #expect(throws: HTTPWireError.self, "\(bad)") { _ = try ProxyEndpoint(parsing: bad) }
        }
        // An error about a bad proxy URL never repeats its password.
        do {
            _ = try ProxyEndpoint(parsing: "http://alice:TOPSECRET@p:x")
        } catch {
            #expect(!"\(error)".contains("TOPSECRET"))
        }
    }

    @Test("each URL takes its scheme's proxy, else all_proxy, unless no_proxy names its host")
    func routes() throws {
        let routes = try ProxyRoutes(
            ProxyConfiguration(
                httpProxy: "http://h:1", allProxy: "socks5h://all:2", noProxy: "direct.test",
                credentials: .init(user: "u", password: "p")))
        let http = try #require(routes.proxy(for: try TargetURL("http://a.test/")))
        #expect(http.host == "h" && http.kind == .http)
        #expect(http.credentials == ProxyEndpoint.Credentials(user: "u", password: "p"))
        let https = try #require(routes.proxy(for: try TargetURL("https://a.test/")))
        #expect(https.host == "all" && https.kind == .socks5h)
        #expect(routes.proxy(for: try TargetURL("https://api.direct.test/")) == nil)
        #expect(ProxyRoutes.direct.proxy(for: try TargetURL("http://a.test/")) == nil)
        #expect(throws: HTTPWireError.self) { _ = try ProxyRoutes(ProxyConfiguration(allProxy: "ftp://x")) }
    }

    @Test("the pool key includes the proxy and its credentials")
    func poolKey() {
        let proxy = ProxyEndpoint(kind: .http, host: "p", port: 3128)
        let direct = OriginKey(scheme: .https, host: "a.test", port: 443)
        let proxied = OriginKey(scheme: .https, host: "a.test", port: 443, proxy: proxy)
        let other = OriginKey(
            scheme: .https, host: "a.test", port: 443,
            proxy: proxy.replacingCredentials(.init(user: "bob", password: "x")))
        #expect(direct != proxied)
        #expect(proxied != other)
        #expect(proxied == OriginKey(scheme: .https, host: "A.test", port: 443, proxy: proxy))
        #expect(proxied.description == "https://a.test:443 via http://p:3128")
        #expect(!other.description.contains("x@"))
    }

    @Test("the CONNECT request names the origin's authority, with credentials only when given")
    func connectRequest() throws {
        let origin = OriginKey(scheme: .https, host: "::1", port: 8443)
        let anonymous = try ProxyTunnel.request(to: origin, through: ProxyEndpoint(kind: .http, host: "p", port: 1))
        #expect(String(decoding: anonymous, as: UTF8.self) == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n\r\n")
        let proxy = ProxyEndpoint(
            kind: .http, host: "p", port: 1, credentials: .init(user: "alice", password: "s3cret"))
        let named = OriginKey(scheme: .https, host: "a.test", port: 443)
        let text = String(decoding: try ProxyTunnel.request(to: named, through: proxy), as: UTF8.self)
        #expect(
            text
                == "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\nProxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n\r\n"
        )
    }

    @Test("pins parse in curl's sha256//BASE64 spelling, one or a ;-separated list")
    func pins() throws {
        let hash = (0..<32).map { UInt8($0) }
        let pin = PublicKeyPin(sha256: hash)
        #expect(pin.description == "sha256//AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
        #expect(PublicKeyPin(pin.description) == pin)
        #expect(PublicKeyPin.list("\(pin);\(PublicKeyPin(sha256: Array(repeating: 7, count: 32)))")?.count == 2)
        for bad in ["", "sha256//", "sha1//AAEC", "sha256//AAECAwQ=", "\(pin);nonsense", "/etc/key.pem"] {
            #expect(PublicKeyPin.list(bad) == nil, "\(bad)")
        }
    }

    @Test("the default configuration reads the environment; .none never uses a proxy")
    func defaults() {
        #expect(ClientConfiguration().proxy == ProxyConfiguration.environment)
        #expect(ProxyConfiguration.none == ProxyConfiguration())
    }
}

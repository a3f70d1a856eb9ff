// Tests for OriginKey: what makes two URLs share connections, and how an origin prints.

import HTTPWire
import Testing

@Suite struct OriginKeyTests {
    @Test("hosts compare case-insensitively and the default port is explicit")
    func equality() {
        let upper = OriginKey(scheme: .https, host: "Example.TEST")
        let lower = OriginKey(scheme: .https, host: "example.test", port: 443)
        #expect(upper == lower)
        #expect(upper.host == "example.test")
        #expect(Set([upper, lower]).count == 1)
    }

    @Test("scheme and port separate origins")
    func distinctOrigins() {
        let https = OriginKey(scheme: .https, host: "example.test", port: 8443)
        #expect(https != OriginKey(scheme: .http, host: "example.test", port: 8443))
        #expect(https != OriginKey(scheme: .https, host: "example.test", port: 443))
        #expect(OriginKey(scheme: .http, host: "example.test").port == 80)
    }

    @Test("the route is part of the origin: direct, through one proxy, through another")
    func routes() throws {
        let proxy = try ProxyEndpoint(parsing: "proxy.test:3128")
        let same = try ProxyEndpoint(parsing: "proxy.test:3128")
        let other = try ProxyEndpoint(parsing: "proxy.test:3129")
        let direct = OriginKey(scheme: .https, host: "example.test")
        let proxied = OriginKey(scheme: .https, host: "example.test", port: 443, proxy: proxy)
        #expect(direct != proxied)
        #expect(proxied == OriginKey(scheme: .https, host: "example.test", port: 443, proxy: same))
        #expect(proxied != OriginKey(scheme: .https, host: "example.test", port: 443, proxy: other))
    }

    @Test("a key matches the parts it was made from, and no other origin or route")
    func matches() throws {
        let proxy = try ProxyEndpoint(parsing: "proxy.test:3128")
        let direct = OriginKey(scheme: .https, host: "example.test", port: 8443)
        #expect(direct.matches(scheme: .https, host: "example.test", port: 8443, proxy: nil))
        #expect(!direct.matches(scheme: .http, host: "example.test", port: 8443, proxy: nil))
        #expect(!direct.matches(scheme: .https, host: "example.org", port: 8443, proxy: nil))
        #expect(!direct.matches(scheme: .https, host: "example.test", port: 443, proxy: nil))
        #expect(!direct.matches(scheme: .https, host: "example.test", port: 8443, proxy: proxy))
        let proxied = OriginKey(scheme: .https, host: "example.test", port: 8443, proxy: proxy)
        #expect(proxied.matches(scheme: .https, host: "example.test", port: 8443, proxy: proxy))
        #expect(!proxied.matches(scheme: .https, host: "example.test", port: 8443, proxy: nil))
        let other = try ProxyEndpoint(parsing: "other.test:3128")
        #expect(!proxied.matches(scheme: .https, host: "example.test", port: 8443, proxy: other))
    }

    @Test("prints as scheme://host:port, with IPv6 addresses in brackets")
    func description() {
        #expect(OriginKey(scheme: .https, host: "Example.test").description == "https://example.test:443")
        #expect(OriginKey(scheme: .http, host: "127.0.0.1", port: 8080).description == "http://127.0.0.1:8080")
        #expect(OriginKey(scheme: .http, host: "::1", port: 8080).description == "http://[::1]:8080")
    }

    @Test("only ASCII letters are lowercased")
    func asciiOnly() {
        #expect(OriginKey(scheme: .http, host: "XN--BCHER-KVA.Example").host == "xn--bcher-kva.example")
        #expect(OriginKey(scheme: .http, host: "İ").host == "İ")
    }
}

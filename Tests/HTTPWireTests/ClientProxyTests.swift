// Proxies against real ones on loopback: tinyproxy (absolute-form http://, CONNECT tunnels for https://,
// Basic credentials, 407), dante (SOCKS5, socks5h:// and socks5://, RFC 1929 refusals), and the in-process
// SOCKS5TestServer for what dante cannot show (the address type sent, accepted credentials, failure replies).
// The origin is always an in-process FixtureServer, whose /echo shows what reached it.

import FixtureServer
import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct ClientProxyTests {
    /// A client that goes through `proxy` (a URL), logging into `log`, and trusts the test CA when
    /// `trustsTestCA` (which waits for make-certs.sh: over a minute on a busy machine, so the plain-HTTP
    /// tests do without).
    private func client(
        proxy: String?, noProxy: String? = nil, log: LogCollector? = nil, trustsTestCA: Bool = true,
        _ configure: (inout ClientConfiguration) -> Void = { _ in }
    ) async throws -> HTTPClient {
        var configuration = ClientConfiguration()
        configuration.proxy = ProxyConfiguration(allProxy: proxy, noProxy: noProxy)
        configuration.timeouts.connect = .seconds(20).scaled
        configuration.timeouts.idle = .seconds(20).scaled
        configuration.tls.trustsSystemRoots = false
        if trustsTestCA {
            configuration.tls.additionalTrustRoots = [.file(path: try await TestCertificates.path("ca.pem"))]
        }
        configuration.logger = log?.logger
        configure(&configuration)
        return HTTPClient(configuration: configuration)
    }

    private func tlsServer(_ leaf: String = "leaf") async throws -> TLSServerConfiguration {
        TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path(leaf + ".pem")),
            privateKey: .file(path: try await TestCertificates.path(leaf + ".key")))
    }

    /// The fields the origin received, from /echo.
    private func echoed(_ response: HTTPResponse) throws -> ClientFixture.Echo {
        try ClientFixture.decode(ClientFixture.Echo.self, response)
    }

    // MARK: tinyproxy

    @Test("an http:// request goes to tinyproxy in absolute form and reaches the origin", .timeLimit(.scaledMinutes(3)))
    func absoluteForm() async throws {
        try await withProxy(.tinyproxy) { proxy in
            try await withFixtureServer { origin in
                let log = LogCollector()
                let client = try await client(proxy: proxy.url(), log: log, trustsTestCA: false)
                let url = origin.baseURL + "echo?via=proxy"
                let response = try await client.get(url)
                #expect(response.status == .ok)
                // tinyproxy adds Via (RFC 9110 §7.6.3) to what it forwards: the request went through it.
                #expect(try echoed(response).values("Via").first?.contains("tinyproxy") == true)
                let head = try #require(log.events(.requestHead).first?.text)
                #expect(head.hasPrefix("GET \(url) HTTP/1.1\n"), "\(head)")
                #expect(proxy.log.contains("GET \(url)"), "\(proxy.log)")
                await client.shutdown()
            }
        }
    }

    @Test(
        "an https:// request opens a CONNECT tunnel, and TLS runs to the origin through it",
        .timeLimit(.scaledMinutes(3)))
    func connectTunnel() async throws {
        try await withProxy(.tinyproxy) { proxy in
            try await withFixtureServer(tls: try await tlsServer()) { origin in
                let client = try await client(proxy: proxy.url())
                let url = "https://localhost:\(origin.port)/echo"
                let first = try await client.get(url)
                #expect(first.status == .ok)
                // Blind relaying: tinyproxy cannot add its Via field inside TLS.
                #expect(try echoed(first).values("Via").isEmpty)
                #expect(proxy.log.contains("CONNECT localhost:\(origin.port)"), "\(proxy.log)")
                // The tunnel is kept alive and pooled under the origin-and-proxy key.
                let second = try await client.get(url)
                #expect(second.status == .ok)
                #expect(client.connectionsOpened == 1)
                await client.shutdown()
            }
        }
    }

    @Test(
        "through a tunnel the certificate is checked against the origin's name, not the proxy's",
        .timeLimit(.scaledMinutes(3)))
    func tunnelChecksOrigin() async throws {
        try await withProxy(.tinyproxy) { proxy in
            try await withFixtureServer(tls: try await tlsServer("wrong-host")) { origin in
                let client = try await client(proxy: proxy.url())
                await #expect {
                    _ = try await client.get("https://localhost:\(origin.port)/echo")
                } throws: { error in
                    guard case .peerCertificateRejected(let reason) = error as? HTTPWireError else { return false }
                    return reason.contains("hostname mismatch")
                }
                await client.shutdown()
            }
        }
    }

    @Test(
        "credentials go as Proxy-Authorization: Basic to the proxy only, redacted in the log",
        .timeLimit(.scaledMinutes(3)))
    func credentials() async throws {
        try await withProxy(.tinyproxy, options: ["alice", "s3cret"]) { proxy in
            let log = LogCollector()
            let client = try await client(proxy: proxy.url(credentials: "alice:s3cret"), log: log)
            try await withFixtureServer { origin in
                let response = try await client.get(origin.baseURL + "echo")
                #expect(response.status == .ok)
                #expect(try echoed(response).values("Proxy-Authorization").isEmpty)
            }
            try await withFixtureServer(tls: try await tlsServer()) { origin in
                let response = try await client.get("https://localhost:\(origin.port)/echo")
                #expect(response.status == .ok)
                #expect(try echoed(response).values("Proxy-Authorization").isEmpty)
            }
            let heads = log.events(.requestHead).map(\.text)
            #expect(heads.first?.contains("Proxy-Authorization: [redacted]") == true, "\(heads)")
            #expect(!log.all.contains { $0.text.contains("YWxpY2U6czNjcmV0") || $0.text.contains("s3cret") })
            await client.shutdown()
        }
    }

    @Test(
        "without credentials a 407 is proxyAuthenticationRequired (exit 56), forwarded or tunnelled",
        .timeLimit(.scaledMinutes(3)))
    func proxyAuthenticationRequired() async throws {
        try await withProxy(.tinyproxy, options: ["alice", "s3cret"]) { proxy in
            let client = try await client(proxy: proxy.url())
            let expected = HTTPWireError.proxyAuthenticationRequired(proxy: "http://127.0.0.1:\(proxy.port)")
            try await withFixtureServer { origin in
                _ = await #expect(throws: expected) { _ = try await client.get(origin.baseURL + "echo") }
            }
            try await withFixtureServer(tls: try await tlsServer()) { origin in
                _ = await #expect(throws: expected) { _ = try await client.get("https://localhost:\(origin.port)/") }
            }
            #expect(expected.exitCode == 56)
            await client.shutdown()
        }
    }

    @Test(
        "wrong credentials: tinyproxy's 401 is its answer to a forwarded request and fails a tunnel (exit 56)",
        .timeLimit(.scaledMinutes(3)))
    func wrongProxyCredentials() async throws {
        // tinyproxy 1.11 answers 407 only when Proxy-Authorization is missing; wrong credentials get a 401.
        // For a forwarded request that is an ordinary response (curl too returns it with exit 0); for a
        // CONNECT anything but 2xx is a failed tunnel, as curl's "CONNECT tunnel failed, response 401".
        try await withProxy(.tinyproxy, options: ["alice", "s3cret"]) { proxy in
            let client = try await client(proxy: proxy.url(credentials: "alice:wrong"))
            try await withFixtureServer { origin in
                let response = try await client.get(origin.baseURL + "echo")
                #expect(response.status.rawValue == 401)
            }
            try await withFixtureServer(tls: try await tlsServer()) { origin in
                let error = await #expect(throws: HTTPWireError.proxyTunnelFailed(status: 401)) {
                    _ = try await client.get("https://localhost:\(origin.port)/")
                }
                #expect(error?.exitCode == 56)
            }
            await client.shutdown()
        }
    }

    @Test(
        "a tunnel the proxy refused is closed, never pooled, and the next request asks again",
        .timeLimit(.scaledMinutes(3)))
    func failedTunnelNotReused() async throws {
        try await withProxy(.tinyproxy) { proxy in
            try await withClosedPort { closedPort in
                let client = try await client(proxy: proxy.url(), trustsTestCA: false)
                for _ in 0..<2 {
                    await #expect {
                        _ = try await client.get("https://127.0.0.1:\(closedPort)/")
                    } throws: { error in
                        guard case .proxyTunnelFailed(let status) = error as? HTTPWireError else { return false }
                        return status >= 500
                    }
                }
                let endpoint = try ProxyEndpoint(parsing: proxy.url())
                let key = OriginKey(scheme: .https, host: "127.0.0.1", port: closedPort, proxy: endpoint)
                let counts = client.pool.snapshot(of: key)
                #expect(counts.idle == 0 && counts.leased == 0 && counts.connecting == 0)
                #expect(client.connectionsOpened == 0)
                #expect(proxy.log.components(separatedBy: "CONNECT 127.0.0.1:\(closedPort)").count - 1 == 2)
                await client.shutdown()
            }
        }
    }

    @Test(
        "no_proxy sends matching hosts direct, past a proxy that would refuse them; an address range too",
        .timeLimit(.scaledMinutes(1)), arguments: ["127.0.0.1", "127.0.0.0/8", "::1/128, 127.0.0.0/30"])
    func noProxyBypass(list: String) async throws {
        try await withClosedPort { closedPort in
            try await withFixtureServer { origin in
                let client = try await client(
                    proxy: "http://127.0.0.1:\(closedPort)", noProxy: list, trustsTestCA: false)
                let response = try await client.get(origin.baseURL + "echo")
                #expect(try echoed(response).values("Via").isEmpty)
                await client.shutdown()
                // A range that leaves the address out sends the request to the proxy, which refuses it.
                let missed = try await self.client(
                    proxy: "http://127.0.0.1:\(closedPort)", noProxy: "127.0.0.2/32", trustsTestCA: false)
                await #expect(throws: HTTPWireError.self) { try await missed.get(origin.baseURL + "echo") }
                await missed.shutdown()
            }
        }
    }

    // MARK: SOCKS4a (dante speaks SOCKS4, not 4a: a scripted proxy checks the bytes)

    /// A one-connection SOCKS4a proxy that records the request, answers `code`, and on 90 plays the origin
    /// itself: it reads the HTTP request that follows on the same connection and answers "ok".
    private static func scriptedSOCKS4a(
        _ listener: Listener, code: UInt8, request: LockedState<[UInt8]>
    ) -> Task<Void, Never> {
        Task(executorPreference: ServerExecutor.shared) {
            guard let socket = try? await listener.accept() else { return }
            let deadline = Deadline.after(.seconds(10).scaled)
            var received: [UInt8] = []
            // VN CD PORT(2) IP(4), then the user ID and the name, each ended by a NUL.
            while received.count < 8 || received[8...].filter({ $0 == 0 }).count < 2 {
                var piece: [UInt8] = []
                guard let count = try? await socket.read(into: &piece, maxBytes: 512, deadline: deadline), count > 0
                else { break }
                received += piece[..<count]
            }
            request.withLock { $0 = received }
            _ = try? await socket.write([0, code, 0, 0, 0, 0, 0, 0], deadline: deadline)
            if code == 90 {
                var head: [UInt8] = []
                while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                    var piece: [UInt8] = []
                    guard let count = try? await socket.read(into: &piece, maxBytes: 4096, deadline: deadline),
                        count > 0
                    else { break }
                    head += piece[..<count]
                }
                let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                _ = try? await socket.write(Array(answer.utf8), deadline: deadline)
            }
            await socket.close()
        }
    }

    @Test(
        "socks4a:// sends the name for the proxy to resolve, and the user name as the user ID; a refusal is exit 97",
        .timeLimit(.scaledMinutes(1)))
    func socks4a() async throws {
        let request = LockedState<[UInt8]>([])
        let listener = try Listener.bind()
        let proxy = Self.scriptedSOCKS4a(listener, code: 90, request: request)
        let client = try await client(proxy: "socks4a://ada:ignored@127.0.0.1:\(listener.port)")
        let response = try await client.get("http://origin.test:8080/path")
        #expect(response.status == .ok && response.text == "ok")
        #expect(
            request.withLock { $0 } == [4, 1, 0x1F, 0x90, 0, 0, 0, 1] + Array("ada".utf8) + [0]
                + Array("origin.test".utf8) + [0])
        await client.shutdown()
        await proxy.value
        await listener.close()

        let refusing = try Listener.bind()
        let refusal = Self.scriptedSOCKS4a(refusing, code: 91, request: request)
        let refused = try await self.client(proxy: "socks4a://127.0.0.1:\(refusing.port)")
        let error = try await #require(throws: HTTPWireError.self) { _ = try await refused.get("http://origin.test/") }
        #expect(error.exitCode == 97 && "\(error)".contains("request rejected or failed (reply 91)"), "\(error)")
        await refused.shutdown()
        await refusal.value
        await refusing.close()
    }

    // MARK: dante

    @Test(
        "through dante, socks5h://, socks5:// and socks4:// reach http:// and https:// origins",
        .timeLimit(.scaledMinutes(3)), arguments: ["socks5h", "socks5", "socks4"])
    func dante(scheme: String) async throws {
        try await withProxy(.dante) { proxy in
            let client = try await client(proxy: proxy.url(scheme: scheme))
            try await withFixtureServer { origin in
                let response = try await client.get("http://localhost:\(origin.port)/echo")
                #expect(response.status == .ok)
            }
            try await withFixtureServer(tls: try await tlsServer()) { origin in
                let response = try await client.get("https://localhost:\(origin.port)/echo")
                #expect(response.status == .ok)
                #expect(try echoed(response).target == "/echo")  // origin-form: the tunnel is transparent
            }
            #expect(client.connectionsOpened == 2)
            await client.shutdown()
        }
    }

    @Test(
        "dante requiring RFC 1929 refuses a client without or with unknown credentials (exit 97)",
        .timeLimit(.scaledMinutes(3)))
    func danteRefusesCredentials() async throws {
        try await withProxy(.dante, options: ["username"]) { proxy in
            try await withFixtureServer { origin in
                for credentials in [nil, "nobody-here:wrong"] as [String?] {
                    let client = try await client(proxy: proxy.url(credentials: credentials), trustsTestCA: false)
                    await #expect {
                        _ = try await client.get(origin.baseURL + "echo")
                    } throws: { error in
                        guard let error = error as? HTTPWireError, case .socksProxyFailed(let reason) = error else {
                            return false
                        }
                        return error.exitCode == 97 && reason.hasPrefix("socks5 authentication failed: ")
                    }
                    await client.shutdown()
                }
            }
        }
    }

    // MARK: The in-process SOCKS5 server

    @Test(
        "socks5h:// sends the name (ATYP 3), socks5:// an address resolved here (ATYP 1)", .timeLimit(.scaledMinutes(1))
    )
    func addressTypes() async throws {
        let socks = try SOCKS5TestServer()
        defer { socks.stop() }
        try await withFixtureServer { origin in
            for scheme in ["socks5h", "socks5"] {
                let client = try await client(proxy: "\(scheme)://127.0.0.1:\(socks.port)", trustsTestCA: false)
                let response = try await client.get("http://localhost:\(origin.port)/echo")
                #expect(response.status == .ok)
                await client.shutdown()
            }
        }
        let requests = socks.requests
        try #require(requests.count == 2)
        #expect(requests[0].addressType == 3 && requests[0].host == "localhost")
        #expect(requests[1].addressType == 1 && requests[1].host == "127.0.0.1")
        #expect(requests.allSatisfy { $0.methods == [0] })
    }

    @Test("RFC 1929 credentials from the proxy URL are sent, and accepted or refused", .timeLimit(.scaledMinutes(1)))
    func socksCredentials() async throws {
        let socks = try SOCKS5TestServer(requiredCredentials: (user: "alice", password: "p@ss:word"))
        defer { socks.stop() }
        try await withFixtureServer { origin in
            let good = try await client(
                proxy: "socks5h://alice:p%40ss:word@127.0.0.1:\(socks.port)", trustsTestCA: false)
            #expect(try await good.get(origin.baseURL + "echo").status == .ok)
            await good.shutdown()
            let bad = try await client(proxy: "socks5h://alice:nope@127.0.0.1:\(socks.port)", trustsTestCA: false)
            await #expect(
                throws: HTTPWireError.socksProxyFailed(
                    "socks5 authentication failed: the proxy refused the user name and password (status 1)")
            ) { _ = try await bad.get(origin.baseURL + "echo") }
            await bad.shutdown()
        }
        #expect(socks.requests.first?.methods == [0, 2])
        #expect(socks.requests.first?.user == "alice" && socks.requests.first?.password == "p@ss:word")
    }

    @Test("a SOCKS5 failure reply is socksProxyFailed with RFC 1928's meaning (exit 97)", .timeLimit(.scaledMinutes(1)))
    func socksFailureReply() async throws {
        let socks = try SOCKS5TestServer(replyCode: 2)
        defer { socks.stop() }
        let client = try await client(proxy: "socks5h://127.0.0.1:\(socks.port)", trustsTestCA: false)
        let expected = HTTPWireError.socksProxyFailed(
            "socks5 proxy refused the connection: connection not allowed by ruleset (reply 2)")
        await #expect(throws: expected) { _ = try await client.get("http://origin.test/") }
        #expect(expected.exitCode == 97)
        await client.shutdown()
    }

    // MARK: Reaching the proxy

    @Test(
        "a proxy host that does not resolve is exit 5; a proxy port that refuses is exit 7",
        .timeLimit(.scaledMinutes(1)))
    func unreachableProxy() async throws {
        let unresolved = try await client(proxy: "http://no-such-proxy.invalid:3128", trustsTestCA: false)
        await #expect(throws: HTTPWireError.couldNotResolveProxy("no-such-proxy.invalid")) {
            _ = try await unresolved.get("http://origin.test/")
        }
        #expect(HTTPWireError.couldNotResolveProxy("x").exitCode == 5)
        await unresolved.shutdown()

        try await withClosedPort { closedPort in
            let refused = try await client(proxy: "socks5h://127.0.0.1:\(closedPort)", trustsTestCA: false)
            await #expect {
                _ = try await refused.get("http://origin.test/")
            } throws: { error in
                guard case .couldNotConnect(let host, let port, _) = error as? HTTPWireError else { return false }
                return host == "127.0.0.1" && port == closedPort
            }
            await refused.shutdown()
        }
    }
}

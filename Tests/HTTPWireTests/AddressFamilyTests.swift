// AddressFamilyTests: `ClientConfiguration.addressFamily` (curl's -4 and -6) — a name with both an IPv6 and
// an IPv4 address (given by addressOverrides, so the test does not depend on /etc/hosts) is dialled on the
// chosen family only, whichever family the server listens on; a literal of the other family is exit 6.

import FixtureServer
import HTTPWire
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct AddressFamilyTests {
    private static func client(port: Int, family: ClientConfiguration.AddressFamily) -> HTTPClient {
        var configuration = ClientConfiguration()
        configuration.proxy = .none
        configuration.timeouts.connect = .seconds(10).scaled
        configuration.addressOverrides["dual.test:\(port)"] = ["::1", "127.0.0.1"]
        configuration.addressFamily = family
        return HTTPClient(configuration: configuration)
    }

    @Test("a server on 127.0.0.1: -4 reaches it, -6 is refused on ::1, and -6 with an IPv4 literal is exit 6")
    func serverOnIPv4() async throws {
        try await withFixtureServer { server in
            let url = "http://dual.test:\(server.port)/json"
            let four = Self.client(port: server.port, family: .ipv4)
            let response = try await four.get(url)
            #expect(response.status == .ok && response.metrics.remoteAddress == "127.0.0.1")
            await four.shutdown()

            let six = Self.client(port: server.port, family: .ipv6)
            let refused = try await #require(throws: HTTPWireError.self) { _ = try await six.get(url) }
            #expect(refused == .couldNotConnect(host: "dual.test", port: server.port, errno: ECONNREFUSED))
            let literal = try await #require(throws: HTTPWireError.self) {
                _ = try await six.get("http://127.0.0.1:\(server.port)/json")
            }
            #expect(literal == .couldNotResolveHost("127.0.0.1") && literal.exitCode == 6)
            await six.shutdown()
        }
    }

    @Test("a server on ::1: -6 reaches it, -4 is refused on 127.0.0.1; .any races both and connects")
    func serverOnIPv6() async throws {
        let server = try await FixtureServer.start(host: "::1")
        let url = "http://dual.test:\(server.port)/json"
        let six = Self.client(port: server.port, family: .ipv6)
        let response = try await six.get(url)
        #expect(response.status == .ok && response.metrics.remoteAddress == "::1")
        await six.shutdown()

        let four = Self.client(port: server.port, family: .ipv4)
        let refused = try await #require(throws: HTTPWireError.self) { _ = try await four.get(url) }
        #expect(refused.exitCode == 7, "\(refused)")
        await four.shutdown()

        let any = Self.client(port: server.port, family: .any)
        #expect(try await any.get(url).metrics.remoteAddress == "::1")
        await any.shutdown()
        await server.stop()
    }
}

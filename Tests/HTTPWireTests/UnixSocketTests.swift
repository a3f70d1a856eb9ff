// UnixSocketTests: `ClientConfiguration.unixSocketPath` (curl's --unix-socket) — every connection dials a
// Unix-domain socket file while the URL still names the request (Host, target, TLS name): against the
// fixture server listening on a socket file, and against nginx's `listen unix:`. Kept-alive reuse, redirects
// to another host through the same socket, proxies ignored, the zero-copy body paths (sendfile up, splice
// down) on such a socket, TLS over it, and the errors a missing, dead or over-long path gives.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct UnixSocketTests {
    /// A fresh socket path in the temporary directory (short: `sun_path` holds 107 bytes).
    private static func socketPath() -> String {
        "/tmp/httpwire-\(UUID().uuidString.prefix(8)).sock"
    }

    /// Runs `body` with a fixture server listening on a fresh socket file, and stops it (removing the file)
    /// whether `body` returns or throws.
    private static func withSocketServer(
        tls: TLSServerConfiguration? = nil, _ body: (FixtureServer, String) async throws -> Void
    ) async throws {
        let path = socketPath()
        let server = try await FixtureServer.start(tls: tls, unixSocketPath: path)
        do {
            try await body(server, path)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private static func client(through path: String, _ configure: (inout ClientConfiguration) -> Void = { _ in })
        -> HTTPClient
    {
        var configuration = ClientConfiguration()
        configuration.unixSocketPath = path
        configuration.proxy = .none
        configuration.timeouts.connect = .seconds(10).scaled
        configure(&configuration)
        return HTTPClient(configuration: configuration)
    }

    @Test("requests go through the socket file with the URL's Host, on one kept-alive connection")
    func keptAlive() async throws {
        var socketFile = ""
        try await Self.withSocketServer { server, path in
            socketFile = path
            let client = Self.client(through: path)
            let first = try await client.get("http://api.example.test/json")
            let second = try await client.get("http://api.example.test/bytes/100000")
            #expect(first.status == .ok && second.body.count == 100_000)
            #expect(client.connectionsOpened == 1, "the second request reused the first connection")
            #expect(server.requestLog.map { $0.fields["Host"] } == ["api.example.test", "api.example.test"])
            #expect(second.metrics.isReusedConnection)
            #expect(second.metrics.remoteAddress == path && second.metrics.remotePort == nil)
            #expect(second.metrics.localAddress == nil && second.metrics.localPort == nil, "a client end has no name")
            await client.shutdown()
        }
        #expect(!FileManager.default.fileExists(atPath: socketFile), "stopping the server removed its socket file")
    }

    @Test("a redirect to another host goes through the same socket; a configured proxy is not used")
    func redirectAndProxy() async throws {
        try await Self.withSocketServer { server, path in
            // A proxy on a port where nothing listens: any attempt to use it would fail the request.
            let closed = try ClosedPort()
            let client = Self.client(through: path) {
                $0.proxy = ProxyConfiguration(allProxy: "http://127.0.0.1:\(closed.port)")
            }
            let response = try await client.get("http://first.test/redirect-to?url=http://second.test/json")
            #expect(response.status == .ok)
            #expect(response.url.description == "http://second.test/json")
            #expect(server.requestLog.map { $0.fields["Host"] } == ["first.test", "second.test"])
            // Origin-form targets: a proxy would have been sent absolute-form ones (RFC 9112 §3.2.2).
            #expect(server.requestLog.map(\.target) == ["/redirect-to?url=http://second.test/json", "/json"])
            await client.shutdown()
        }
    }

    @Test("a file body (sendfile's path) and a download to disk (splice's path) cross the socket intact")
    func zeroCopyPaths() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let bytes = DownloadScratch.pattern(3_000_000, seed: 7)
        let source = scratch.file("source.bin")
        try await TestFiles.write(bytes, to: source)
        try await Self.withSocketServer { server, path in
            let client = Self.client(through: path)
            // A file body on a plain connection goes out with sendfile(2); the server echoes what it received.
            let echoed = try await client.send(
                HTTPRequest(method: .put, url: "http://localhost/upload?raw=1", body: .file(path: source)))
            #expect(echoed.status == .ok && Array(echoed.body) == bytes)

            server.setFile("big.bin", contents: bytes)
            let destination = scratch.file("big.bin")
            let result = try await client.download(from: "http://localhost/files/big.bin", to: destination).result()
            #expect(result.bytes == 3_000_000)
            #expect(await DownloadScratch.contents(destination) == bytes)
            await client.shutdown()
        }
    }

    @Test("https over the socket: TLS checks the URL's name", .timeLimit(.scaledMinutes(1)))
    func tlsOverSocket() async throws {
        let caPath = try await TestCertificates.path("ca.pem")
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")))
        try await Self.withSocketServer(tls: tls) { _, path in
            let client = Self.client(through: path) {
                $0.tls = TLSConfiguration(trustsSystemRoots: false, additionalTrustRoots: [.file(path: caPath)])
            }
            #expect(try await client.get("https://localhost/json").status == .ok)
            // The same socket under a name the certificate does not hold: exit 60, as over TCP.
            let error = try await #require(throws: HTTPWireError.self) {
                _ = try await client.get("https://not-in-the-certificate.test/json")
            }
            #expect(error.exitCode == 60, "\(error)")
            await client.shutdown()
        }
    }

    @Test("a missing file, a file nobody listens on and an over-long path are exit 7 naming the path")
    func connectErrors() async throws {
        let missing = Self.socketPath()
        let client = Self.client(through: missing)
        let error = try await #require(throws: HTTPWireError.self) { _ = try await client.get("http://localhost/") }
        #expect(error == .couldNotConnect(host: missing, port: 0, errno: ENOENT))
        #expect(error.exitCode == 7)
        #expect("\(error)".hasPrefix("could not connect to \(missing): "), "\(error)")
        await client.shutdown()

        // A regular file where the socket should be: the kernel refuses the connection.
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let plain = scratch.file("not-a-socket")
        try await TestFiles.write([1, 2, 3], to: plain)
        let refused = Self.client(through: plain)
        let refusal = try await #require(throws: HTTPWireError.self) { _ = try await refused.get("http://localhost/") }
        #expect(refusal == .couldNotConnect(host: plain, port: 0, errno: ECONNREFUSED))
        await refused.shutdown()

        let long = "/tmp/" + String(repeating: "x", count: 120)
        let tooLong = Self.client(through: long)
        let lengthError = try await #require(throws: HTTPWireError.self) {
            _ = try await tooLong.get("http://localhost/")
        }
        #expect(lengthError == .couldNotConnect(host: long, port: 0, errno: ENAMETOOLONG))
        await tooLong.shutdown()
    }

    @Test("a socket address holds the path, refuses what sun_path cannot, and prints as the path")
    func socketAddress() throws {
        let address = try #require(SocketAddress(unixSocketPath: "/run/app.sock"))
        #expect(address.isUnixDomain && address.host == "/run/app.sock" && address.port == 0)
        #expect(address.description == "/run/app.sock")
        let longest = "/" + String(repeating: "a", count: 106)  // 107 bytes and the NUL: exactly sun_path
        #expect(SocketAddress(unixSocketPath: longest)?.host == longest)
        #expect(SocketAddress(unixSocketPath: longest + "a") == nil)
        #expect(SocketAddress(unixSocketPath: "") == nil)
        #expect(SocketAddress(unixSocketPath: "/a\u{0}b") == nil)
    }

    @Test("nginx on its Unix-domain socket: a file, a range of it, and a PUT", .timeLimit(.scaledMinutes(1)))
    func nginx() async throws {
        let bytes = DownloadScratch.pattern(1_000_000, seed: 9)
        try await withNginx(files: ["big.bin": bytes]) { nginx in
            // nginx-loopback.sh listens there only when the path fits sun_path: say so if it did not.
            try #require(
                FileManager.default.fileExists(atPath: nginx.unixSocketPath), "no socket at \(nginx.unixSocketPath)")
            let client = Self.client(through: nginx.unixSocketPath)
            let whole = try await client.get("http://localhost/big.bin")
            #expect(whole.status == .ok && Array(whole.body) == bytes)
            let part = try await client.send(
                HTTPRequest(url: "http://localhost/big.bin", fields: ["Range": "bytes=1000-1999"]))
            #expect(part.status == .partialContent && Array(part.body) == Array(bytes[1000..<2000]))
            let stored = try await client.send(
                HTTPRequest(method: .put, url: "http://localhost/upload/copy.bin", body: .bytes(Array(bytes[..<5000]))))
            #expect(stored.status == .created || stored.status == .noContent, "\(stored.status)")
            #expect(await TestFiles.contents(of: nginx.directory + "/upload/copy.bin") == Array(bytes[..<5000]))
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }
}

// Transport tests over TLS: a round trip, every class of certificate rejection and the error it gives,
// other handshake failures, IP-address SANs, extra trust from PEM text, and mutual TLS.

import FixtureServer
import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct TLS {
        /// Connects a TLS client trusting `roots` to an echo server presenting `leaf`.
        private func handshake(
            leaf: String, serverName: String = "localhost", client: TLSContext? = nil,
            deadline: Deadline = .after(.seconds(10).scaled)
        ) async throws -> TLSStream {
            let server = try EchoServer.start(tls: try await TestCertificates.serverContext(leaf))
            defer { Task { await server.stop() } }
            let context: TLSContext
            if let client { context = client } else { context = try await TestCertificates.clientContext() }
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: deadline)
            return try await TLSStream.connect(
                over: socket, serverName: serverName, context: context, deadline: deadline)
        }

        /// The rejection `leaf` causes, or nil when the handshake succeeded.
        private func rejection(leaf: String, serverName: String = "localhost", client: TLSContext? = nil) async throws
            -> TransportError?
        {
            do {
                let stream = try await handshake(leaf: leaf, serverName: serverName, client: client)
                await stream.close()
                return nil
            } catch let error as TransportError {
                return error
            }
        }

        @Test("a TLS round trip with ALPN http/1.1", .timeLimit(.scaledMinutes(1)))
        func roundTrip() async throws {
            let stream = try await handshake(leaf: "leaf")
            #expect(stream.negotiatedProtocol == "http/1.1")
            let message = patternBytes(200_000)
            async let sent: Void = stream.write(message, deadline: .after(.seconds(10).scaled))
            let echoed = try await stream.read(exactly: message.count)
            try await sent
            #expect(echoed == message)
            await stream.close()
            #expect(!stream.isOpen)
        }

        @Test(
            "the client's TLS 1.3 suite order puts AES-128-GCM first, and the server follows it",
            .timeLimit(.scaledMinutes(1)))
        func cipherSuiteOrder() async throws {
            // The echo server's context keeps OpenSSL's default order (AES-256 first) and no server
            // preference, so the suite chosen is the client's first choice.
            let stream = try await handshake(leaf: "leaf")
            #expect(stream.negotiatedCipherSuite == "TLS_AES_128_GCM_SHA256")
            await stream.close()
        }

        @Test("an IP literal is checked against the certificate's IP SANs", .timeLimit(.scaledMinutes(1)))
        func ipAddressSAN() async throws {
            #expect(try await rejection(leaf: "leaf", serverName: "127.0.0.1") == nil)
            let error = try await rejection(leaf: "wrong-host", serverName: "127.0.0.1")
            #expect(error == .peerCertificateRejected("ip address mismatch"))
        }

        @Test(
            "each rejected certificate gives peerCertificateRejected with OpenSSL's reason (exit 60)",
            .timeLimit(.scaledMinutes(1)),
            arguments: [
                ("self-signed", "self-signed certificate"),
                ("unknown-ca-leaf", "unable to get local issuer certificate"),
                ("expired", "certificate has expired"),
                ("wrong-host", "hostname mismatch"),
            ])
        func rejections(leaf: String, reason: String) async throws {
            let error = try #require(try await rejection(leaf: leaf))
            // OpenSSL 3.0 spells it "self signed certificate"; later releases add the hyphen.
            let normalized = TransportError.peerCertificateRejected(
                reason == "self-signed certificate" && error.description.contains("self signed")
                    ? "self signed certificate" : reason)
            #expect(error == normalized)
            #expect(HTTPWireError(error, phase: .connect).exitCode == 60)
        }

        @Test("the test CA is not trusted from the system store alone", .timeLimit(.scaledMinutes(1)))
        func systemStoreOnly() async throws {
            let client = try TLSContext(client: TLSConfiguration().transportSettings)
            let error = try await rejection(leaf: "leaf", client: client)
            #expect(error == .peerCertificateRejected("unable to get local issuer certificate"))
        }

        @Test("extra trust given as PEM text", .timeLimit(.scaledMinutes(1)))
        func trustFromPEMText() async throws {
            let pem = try await String(contentsOfFile: TestCertificates.path("ca.pem"), encoding: .utf8)
            let client = try TLSContext(client: TLSConfiguration(additionalTrustRoots: [.text(pem)]).transportSettings)
            #expect(try await rejection(leaf: "leaf", client: client) == nil)
        }

        @Test("verification can be switched off for testing", .timeLimit(.scaledMinutes(1)))
        func insecure() async throws {
            let client = try TLSContext(
                client: TLSConfiguration(trustsSystemRoots: false, verifiesPeer: false).transportSettings)
            #expect(try await rejection(leaf: "self-signed", client: client) == nil)
        }

        @Test(
            "a plain-HTTP peer is tlsHandshakeFailed (exit 35), not a certificate problem",
            .timeLimit(.scaledMinutes(1)))
        func notTLS() async throws {
            let listener = try Listener.bind()
            let serverTask = Task(executorPreference: ServerExecutor.shared) {
                let socket = try await listener.accept()
                try await socket.write(
                    Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8), deadline: .never)
                var buffer: [UInt8] = []
                _ = try? await socket.read(
                    into: &buffer, maxBytes: 1000, deadline: .after(.seconds(5).scaled))
                await socket.close()
            }
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let error = await #expect(throws: TransportError.self) {
                _ = try await TLSStream.connect(
                    over: socket, serverName: "localhost", context: try await TestCertificates.clientContext(),
                    deadline: .after(.seconds(5).scaled))
            }
            #expect(error.map { HTTPWireError($0, phase: .connect).exitCode } == 35)
            #expect(error?.description.contains("wrong version number") == true)
            #expect(!socket.isOpen)
            try await serverTask.value
            await listener.close()
        }

        @Test("a peer that closes during the handshake is tlsHandshakeFailed", .timeLimit(.scaledMinutes(1)))
        func peerClosed() async throws {
            let listener = try Listener.bind()
            let serverTask = Task(executorPreference: ServerExecutor.shared) { await (try? listener.accept())?.close() }
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let error = await #expect(throws: TransportError.self) {
                _ = try await TLSStream.connect(
                    over: socket, serverName: "localhost", context: try await TestCertificates.clientContext(),
                    deadline: .after(.seconds(5).scaled))
            }
            #expect(error.map { HTTPWireError($0, phase: .connect).exitCode } == 35)
            await serverTask.value
            await listener.close()
        }

        @Test("a silent peer makes the handshake time out in the connect phase", .timeLimit(.scaledMinutes(1)))
        func handshakeTimeout() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let silent = try await accepted
            let error = await #expect(throws: TransportError.self) {
                _ = try await TLSStream.connect(
                    over: socket, serverName: "localhost", context: try await TestCertificates.clientContext(),
                    deadline: .after(.milliseconds(200)))
            }
            #expect(error == .timedOut)
            #expect(!socket.isOpen)
            await silent.close()
            await listener.close()
        }

        @Test("mutual TLS: the server requires and verifies the client's certificate", .timeLimit(.scaledMinutes(1)))
        func mutualTLS() async throws {
            let caPath = try await TestCertificates.path("ca.pem")
            let serverContext = try await TestCertificates.serverContext("leaf", clientRoots: [.file(path: caPath)])
            let listener = try Listener.bind()
            let serverTask = Task(executorPreference: ServerExecutor.shared) { () -> Bool in
                guard let socket = try? await listener.accept() else { return false }
                guard let stream = try? await TLSStream.accept(over: socket, context: serverContext, deadline: .never)
                else { return false }
                try? await stream.write(Array("hello".utf8), deadline: .never)
                await stream.close()
                return true
            }
            let clientKey = try String(contentsOfFile: await TestCertificates.path("client.key"), encoding: .utf8)
            let client = try TLSContext(
                client: TLSConfiguration(
                    trustsSystemRoots: false, additionalTrustRoots: [.file(path: caPath)],
                    clientCertificateChain: .file(path: await TestCertificates.path("client.pem")),
                    clientPrivateKey: .text(clientKey)
                ).transportSettings)
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let stream = try await TLSStream.connect(
                over: socket, serverName: "localhost", context: client, deadline: .never)
            #expect(try await stream.read(exactly: 5) == Array("hello".utf8))
            await stream.close()
            #expect(await serverTask.value)

            // Without a client certificate the server refuses the handshake.
            let refusingTask = Task(executorPreference: ServerExecutor.shared) { () -> Bool in
                guard let socket = try? await listener.accept() else { return false }
                return (try? await TLSStream.accept(over: socket, context: serverContext, deadline: .never)) == nil
            }
            let anonymous = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let anonymousContext = try await TestCertificates.clientContext()
            let anonymousStream = try? await TLSStream.connect(
                over: anonymous, serverName: "localhost", context: anonymousContext,
                deadline: .after(.seconds(5).scaled))
            // TLS 1.3 finishes the client's side first; the refusal then arrives as a failed (or ended) read.
            if let anonymousStream {
                var buffer: [UInt8] = []
                let outcome = try? await anonymousStream.read(
                    into: &buffer, maxBytes: 10, deadline: .after(.seconds(5).scaled))
                #expect(outcome == nil || outcome == 0)
                await anonymousStream.close()
            }
            await anonymous.close()
            #expect(await refusingTask.value)
            await listener.close()
        }

        @Test("a missing CA file is reported when the context is built", .timeLimit(.scaledMinutes(1)))
        func missingCAFile() throws {
            #expect(throws: TransportError.self) {
                _ = try TLSContext(
                    client: TLSConfiguration(additionalTrustRoots: [.file(path: "/nonexistent/ca.pem")])
                        .transportSettings)
            }
        }
    }
}

// Transport tests of cancellation and leaks: a cancelled read or handshake returns CancellationError at
// once, the descriptor is closed, and /proc/self/fd ends where it started.

import Foundation
import Testing

@testable import HTTPWire

extension TransportTests {
    @Suite struct Cancellation {
        @Test(
            "cancelling a waiting read throws CancellationError and leaves no descriptor open", .timeLimit(.minutes(1)))
        func cancelRead() async throws {
            let descriptorsBefore = await ProcessProbe.baselineDescriptorCount()
            let targetsBefore = ProcessProbe.openDescriptorTargets()
            let listener = try Listener.bind()
            async let accepted = listener.accept()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let silent = try await accepted
            let parkedBefore = AnyReactorOperation.parkedCount
            let reader = Task {
                var buffer: [UInt8] = []
                return try await socket.read(into: &buffer, maxBytes: 100, deadline: .never)
            }
            #expect(await ProcessProbe.waitUntilParked(atLeast: parkedBefore + 1))
            reader.cancel()
            await #expect(throws: CancellationError.self) { _ = try await reader.value }
            #expect(!socket.isOpen)
            await silent.close()
            await listener.close()
            #expect(
                await ProcessProbe.eventually { ProcessProbe.openDescriptorCount() == descriptorsBefore },
                "before: \(targetsBefore), after: \(ProcessProbe.openDescriptorTargets())")
            #expect(AnyReactorOperation.parkedCount == parkedBefore)
        }

        @Test("cancelling a handshake in progress closes the socket", .timeLimit(.minutes(1)))
        func cancelHandshake() async throws {
            let context = try TestCertificates.clientContext()
            let descriptorsBefore = await ProcessProbe.baselineDescriptorCount()
            let targetsBefore = ProcessProbe.openDescriptorTargets()
            let listener = try Listener.bind()
            async let accepted = listener.accept()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let silent = try await accepted  // accepts TCP, never answers the ClientHello
            let parkedBefore = AnyReactorOperation.parkedCount
            let handshake = Task {
                try await TLSStream.connect(over: socket, serverName: "localhost", context: context, deadline: .never)
            }
            #expect(await ProcessProbe.waitUntilParked(atLeast: parkedBefore + 1))
            handshake.cancel()
            await #expect(throws: CancellationError.self) { _ = try await handshake.value }
            #expect(!socket.isOpen)
            await silent.close()
            await listener.close()
            #expect(
                await ProcessProbe.eventually { ProcessProbe.openDescriptorCount() == descriptorsBefore },
                "before: \(targetsBefore), after: \(ProcessProbe.openDescriptorTargets())")
        }

        @Test("an operation started by an already cancelled task never runs", .timeLimit(.minutes(1)))
        func cancelledBeforeStart() async throws {
            let server = try EchoServer.start()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: .never)
            let writer = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await socket.write(Array("never sent".utf8), deadline: .never)
            }
            await #expect(throws: CancellationError.self) { try await writer.value }
            #expect(!socket.isOpen)
            await server.stop()
        }

        @Test("a cancelled DNS lookup returns at once", .timeLimit(.minutes(1)))
        func cancelResolve() async throws {
            let lookup = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await Resolver.resolve(host: "no-such-host.invalid", port: 80, deadline: .never)
            }
            await #expect(throws: CancellationError.self) { _ = try await lookup.value }
        }

        @Test("no descriptor was ever found leaked by a deinit", .timeLimit(.minutes(1)))
        func noLeaks() {
            #expect(FileDescriptor.leakedCount == 0)
        }
    }
}

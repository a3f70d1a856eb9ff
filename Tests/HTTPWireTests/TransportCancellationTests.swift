// Transport tests of cancellation and leaks: a cancelled read or handshake returns CancellationError at
// once, and each descriptor the test opened is closed (checked by number and socket inode in /proc/self/fd).

import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct Cancellation {
        // Other suites run beside these ones and open, park and close descriptors of their own, so every
        // check here is about this test's own operation and descriptors: the operation's attempt is observed
        // directly, and each descriptor is identified by its number *and* the socket inode /proc shows for
        // it (numbers are reused at once by whoever opens the next file).

        @Test(
            "cancelling a waiting read throws CancellationError and leaves no descriptor open",
            .timeLimit(.scaledMinutes(1)))
        func cancelRead() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let silent = try await accepted
            let identities = [socket.descriptor, silent.descriptor, listener.descriptor].map(ProcessProbe.identity)
            // A read built like TCPSocket.read, which also counts its attempts: after the first one the reactor
            // has parked it (it parks before it takes the next command, so the cancel finds it waiting).
            let attempts = AttemptCounter()
            let descriptor = socket.descriptor
            let reader = Task {
                try await Reactor.shared.perform(on: descriptor, deadline: .never) { () throws -> ReactorStep<Int> in
                    attempts.count.add(1, ordering: .relaxed)
                    var byte: UInt8 = 0
                    switch try Syscall.run("recv", { recv(descriptor.rawValue, &byte, 1, 0) }) {
                    case .done(let count): return .finished(count)
                    case .wouldBlock: return .wait(.readable)
                    }
                }
            }
            try #require(await eventually { attempts.count.load(ordering: .relaxed) >= 1 })
            reader.cancel()
            await #expect(throws: CancellationError.self) { _ = try await reader.value }
            #expect(attempts.count.load(ordering: .relaxed) == 1, "the cancelled read was attempted again")
            #expect(!socket.isOpen)
            // The same through TCPSocket.read itself: whether the cancel finds it parked or not yet submitted,
            // it ends with CancellationError and the descriptor closed.
            let second = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let secondIdentity = ProcessProbe.identity(second.descriptor)
            let secondReader = Task {
                var buffer: [UInt8] = []
                return try await second.read(into: &buffer, maxBytes: 100, deadline: .never)
            }
            secondReader.cancel()
            await #expect(throws: CancellationError.self) { _ = try await secondReader.value }
            #expect(!second.isOpen)
            await silent.close()
            await listener.close()
            for identity in identities + [secondIdentity] {
                #expect(await eventually { !identity.isOpen }, "\(identity) is still open")
            }
        }

        @Test("cancelling a handshake in progress closes the socket", .timeLimit(.scaledMinutes(1)))
        func cancelHandshake() async throws {
            let context = try await TestCertificates.clientContext()
            let listener = try Listener.bind()
            async let accepted = listener.accept()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let silent = try await accepted  // accepts TCP, never answers the ClientHello
            let identities = [socket.descriptor, silent.descriptor, listener.descriptor].map(ProcessProbe.identity)
            let handshake = Task {
                try await TLSStream.connect(over: socket, serverName: "localhost", context: context, deadline: .never)
            }
            // The first attempt writes the ClientHello and then waits for the answer: once its bytes arrive
            // here, the handshake is parked in the reactor.
            let hello = try await silent.read(exactly: 5)
            #expect(hello.first == 0x16, "a TLS handshake record")
            handshake.cancel()
            await #expect(throws: CancellationError.self) { _ = try await handshake.value }
            #expect(!socket.isOpen)
            await silent.close()
            await listener.close()
            for identity in identities {
                #expect(await eventually { !identity.isOpen }, "\(identity) is still open")
            }
        }

        @Test("an operation started by an already cancelled task never runs", .timeLimit(.scaledMinutes(1)))
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

        @Test("a cancelled DNS lookup returns at once", .timeLimit(.scaledMinutes(1)))
        func cancelResolve() async throws {
            let lookup = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await Resolver.resolve(host: "no-such-host.invalid", port: 80, deadline: .never)
            }
            await #expect(throws: CancellationError.self) { _ = try await lookup.value }
        }

        @Test("no descriptor was ever found leaked by a deinit", .timeLimit(.scaledMinutes(1)))
        func noLeaks() {
            #expect(FileDescriptor.leakedCount == 0)
        }
    }
}

extension ProcessProbe {
    /// One open descriptor as /proc/self/fd shows it: its number and what it refers to ("socket:[123]").
    struct DescriptorIdentity: CustomStringConvertible {
        let number: Int32
        let target: String?

        /// Whether the number still refers to the same file (a reused number refers to another inode).
        var isOpen: Bool { target != nil && ProcessProbe.target(of: number) == target }

        var description: String { "fd \(number) (\(target ?? "?"))" }
    }

    /// The identity of `descriptor` now.
    static func identity(_ descriptor: FileDescriptor) -> DescriptorIdentity {
        DescriptorIdentity(number: descriptor.rawValue, target: target(of: descriptor.rawValue))
    }

    /// What descriptor `number` refers to, or nil when it is not open.
    static func target(of number: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(number)")
    }
}

/// Counts a test operation's attempts (the closure runs on the reactor thread, the test reads it).
final class AttemptCounter: Sendable {
    let count = Atomic<Int>(0)
}

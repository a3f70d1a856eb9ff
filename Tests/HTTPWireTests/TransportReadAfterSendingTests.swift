// Transport tests for the first read after a request: `TCPSocket.readAfterSending` parks without a first
// `recv`, so it must still see bytes that arrived before it parked — on a socket the reactor has never
// watched (its registration reports the present state) and on one whose edge the reactor collected while no
// read waited (`FileDescriptor.hasUnclaimedReadiness`). A read that missed them would hang to its deadline.
// Such a read may also be queued without waking the sleeping loop (`Reactor.enqueue(awaitingEdge:)`): the
// answer's edge wakes it, and the loop's sleep is bounded so that the read's own deadline is still kept.

import TestSupport
import Testing

@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct ReadAfterSending {
        @Test("an answer already waiting on a socket the reactor never watched is read", .timeLimit(.scaledMinutes(1)))
        func unregisteredSocket() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let server = try await accepted
            // An accepted socket has never waited for anything, so the reactor has never watched it.
            try await socket.write(Array("early".utf8), deadline: .never)
            // The bytes have crossed loopback (the peek sees them) before the read is made.
            try #require(await eventually { !server.hasNothingToReadNow() })
            #expect(!server.descriptor.isRegisteredWithReactor)
            #expect(try await Self.readOnce(server) == Array("early".utf8))
            await server.close()
            await socket.close()
            await listener.close()
        }

        @Test(
            "an answer whose edge the reactor took while nobody read is read, not waited for",
            .timeLimit(.scaledMinutes(1)))
        func unclaimedEdge() async throws {
            // A first exchange whose read has to wait: the socket joins the epoll set, and its edge is claimed.
            let (socket, server) = try await Self.registeredPair()
            // Now bytes arrive while no read waits: the reactor collects the edge and notes it.
            try await server.write(Array("two".utf8), deadline: .never)
            try #require(await eventually { socket.descriptor.hasUnclaimedReadiness })
            #expect(try await Self.readOnce(socket) == Array("two".utf8))
            // A read that got less than it asked for emptied the socket: the note is used up (by the loop, just
            // after it resumed the read's task).
            #expect(await eventually { !socket.descriptor.hasUnclaimedReadiness })
            // And the next answer, after the reactor's note was used up, still wakes a waiting read (parked, or
            // queued for a loop that sleeps until the answer's edge).
            #expect(try await Self.answer("three", from: server, to: socket) == Array("three".utf8))
            await server.close()
            await socket.close()
        }

        @Test(
            "while the loop has a deadline it sleeps no longer than its bound, and a read queued without waking it is answered",
            .timeLimit(.scaledMinutes(1)))
        func queuedWithoutWake() async throws {
            // A deadline far away: without the bound, the sleeping loop would not look at its queue for 2 minutes.
            let far = Reactor.shared.schedule(at: .after(.seconds(120))) {}
            defer { far.cancel() }
            try #require(
                await eventually {
                    guard let until = Reactor.shared.sleepsUntil else { return false }
                    return until <= .after(Reactor.longestTimedSleep)
                })
            let (socket, server) = try await Self.registeredPair()
            // The loop sleeps (no other test keeps it busy at that instant): the read is queued, no wake-up.
            try #require(await eventually { Reactor.shared.sleepsUntil != nil })
            #expect(try await Self.answer("answer", from: server, to: socket) == Array("answer".utf8))
            #expect(await eventually { !socket.descriptor.hasUnclaimedReadiness })
            await socket.close()
            await server.close()
        }

        @Test(
            "a read queued without waking the loop still times out at its deadline",
            .timeLimit(.scaledMinutes(1)))
        func queuedReadKeepsItsDeadline() async throws {
            let far = Reactor.shared.schedule(at: .after(.seconds(120))) {}
            defer { far.cancel() }
            let (socket, server) = try await Self.registeredPair()
            // Due after the loop's bound: the queue may hold it while the loop sleeps (nothing ever answers).
            let wait = Reactor.longestTimedSleep + .seconds(1)
            let start = ContinuousClock.now
            var buffer: [UInt8] = []
            await #expect(throws: TransportError.timedOut) {
                _ = try await socket.readAfterSending(into: &buffer, maxBytes: 100, deadline: .after(wait))
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= wait - .milliseconds(20), "timed out early: \(elapsed)")
            // Late by at most the loop's bound (it looks at its queue by then), plus a loaded machine's slack.
            #expect(elapsed < wait + Reactor.longestTimedSleep + .seconds(5).scaled, "timed out late: \(elapsed)")
            await socket.close()  // already closed by the timeout; closing again does nothing
            await server.close()
        }

        /// A snapshot of the reads queued without a wake-up, to tell when the test's read waits in the reactor.
        struct WaitingReads {
            let queued = Reactor.shared.readsQueuedWithoutWake
            /// Whether a read is parked (any: other tests' too, as the parked count is process-wide) or one was
            /// queued since this count.
            var oneMoreWaits: Bool {
                AnyReactorOperation.parkedCount > 0 || Reactor.shared.readsQueuedWithoutWake > queued
            }
        }

        /// Starts a `readAfterSending` on `socket`, waits until it waits in the reactor (parked, or queued for
        /// a loop that sleeps until its edge), then has `server` write `text`; returns what the read got.
        static func answer(_ text: String, from server: TCPSocket, to socket: TCPSocket) async throws -> [UInt8] {
            let before = WaitingReads()
            async let received = readOnce(socket)
            try #require(await eventually { before.oneMoreWaits })
            try await server.write(Array(text.utf8), deadline: .never)
            return try await received
        }

        /// A connected pair whose client end is in the reactor's epoll set, with its one edge claimed.
        static func registeredPair() async throws -> (socket: TCPSocket, server: TCPSocket) {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let server = try await accepted
            await listener.close()
            async let first = Self.readOnce(socket)
            try #require(await eventually { socket.descriptor.isRegisteredWithReactor })
            try await server.write(Array("one".utf8), deadline: .never)
            #expect(try await first == Array("one".utf8))
            return (socket, server)
        }

        /// One `readAfterSending`, bounded so that a missed edge fails the test instead of hanging it.
        static func readOnce(_ socket: TCPSocket) async throws -> [UInt8] {
            var buffer: [UInt8] = []
            let count = try await socket.readAfterSending(
                into: &buffer, maxBytes: 100, deadline: .after(.seconds(10).scaled))
            return Array(buffer.prefix(count))
        }
    }
}

// RecordingRelay: a loopback TCP relay that records every byte passing through it, and can cut one response
// short at a chosen body byte (test support).
//
// The client connects to the relay as if it were the server; the relay opens its own connection to the
// real server and copies bytes both ways, writing down each piece with its direction before forwarding it.
// So a test sees exactly what crossed the wire — the client's request bytes as send(2) wrote them and the
// server's response bytes as recv(2) read them — without changing the client or the server. The traffic is
// kept twice: as one conversation in arrival order (`turns`), and per accepted connection (`exchanges`).
// One fault can be armed: the next connection forwards the server's response head and only the first N
// body bytes, then closes both sides — a connection dropped mid-body in front of a server that behaves.
// The "Life of a request" and "Downloads and resuming" articles quote bytes recorded this way. It knows
// just enough HTTP to find where a response head ends (the first CRLF CRLF); everything else is bytes.
// Its tasks run on FixtureServer's ServerExecutor, as the servers' do.

import FixtureServer
import HTTPWire
import HTTPWireTransport
import TestSupport

/// Relays connections from a local port to `127.0.0.1:targetPort` and records the traffic.
final class RecordingRelay: Sendable {
    /// Which way a recorded piece travelled.
    enum Direction: Sendable, Hashable {
        case clientToServer
        case serverToClient
    }

    /// One piece as one read returned it.
    struct Piece: Sendable, Hashable {
        var direction: Direction
        var bytes: [UInt8]
    }

    /// What crossed one connection: the client's bytes and the server's bytes as the client received them.
    struct Exchange: Sendable, Hashable {
        var request: [UInt8] = []
        var response: [UInt8] = []
    }

    private struct State {
        var pieces: [Piece] = []
        var exchanges: [Exchange] = []
        /// Body bytes the next accepted connection may forward before it is cut; nil forwards everything.
        var armedCut: Int?
        var sockets: [TCPSocket] = []
        var tasks: [Task<Void, Never>] = []
    }

    private let listener: Listener
    private let targetPort: Int
    private let state = LockedState(State())
    private let acceptTask = LockedState<Task<Void, Never>?>(nil)

    /// Every wait is bounded, so a stuck peer fails the test instead of hanging it.
    static let timeout = Duration.seconds(20).scaled

    private init(listener: Listener, targetPort: Int) {
        self.listener = listener
        self.targetPort = targetPort
    }

    /// Starts relaying from a free loopback port to `127.0.0.1:targetPort`.
    static func start(targetPort: Int) throws -> RecordingRelay {
        let relay = RecordingRelay(listener: try Listener.bind(host: "127.0.0.1", port: 0), targetPort: targetPort)
        let task = Task(executorPreference: ServerExecutor.shared) { await relay.acceptLoop() }
        relay.acceptTask.withLock { $0 = task }
        return relay
    }

    /// The port clients connect to.
    var port: Int { listener.port }

    /// Connections the relay accepted (each one is a connection the client opened).
    var acceptedConnections: Int { state.withLock { $0.exchanges.count } }

    /// The exchanges so far, one per accepted connection, in the order they were accepted.
    var exchanges: [Exchange] { state.withLock { $0.exchanges } }

    /// The recorded pieces, with consecutive pieces of the same direction joined: the conversation as
    /// alternating turns.
    var turns: [Piece] {
        var joined: [Piece] = []
        for piece in state.withLock({ $0.pieces }) {
            if let last = joined.last, last.direction == piece.direction {
                joined[joined.count - 1].bytes += piece.bytes
            } else {
                joined.append(piece)
            }
        }
        return joined
    }

    /// Makes the next accepted connection stop after the response head and `count` body bytes.
    func cutNextResponse(afterBodyBytes count: Int) {
        state.withLock { $0.armedCut = count }
    }

    /// Stops accepting, closes every socket and waits for the copying tasks.
    func stop() async {
        await listener.close()
        await acceptTask.withLock { $0 }?.value
        let (sockets, tasks) = state.withLock { ($0.sockets, $0.tasks) }
        for socket in sockets { await socket.close() }
        for task in tasks { await task.value }
    }

    private func acceptLoop() async {
        while true {
            guard let client = try? await listener.accept() else { return }
            let deadline = Deadline.after(Self.timeout)
            guard let server = try? await TCPSocket.connect(host: "127.0.0.1", port: targetPort, deadline: deadline)
            else {
                await client.close()
                continue
            }
            let (index, cut) = state.withLock { state in
                defer { state.armedCut = nil }
                state.exchanges.append(Exchange())
                return (state.exchanges.count - 1, state.armedCut)
            }
            let upstream = Task(executorPreference: ServerExecutor.shared) {
                await self.copy(from: client, to: server, as: .clientToServer, exchange: index, cutAfterBodyBytes: nil)
            }
            let downstream = Task(executorPreference: ServerExecutor.shared) {
                await self.copy(from: server, to: client, as: .serverToClient, exchange: index, cutAfterBodyBytes: cut)
            }
            state.withLock { state in
                state.sockets += [client, server]
                state.tasks += [upstream, downstream]
            }
        }
    }

    /// Copies until either side closes, recording each piece before forwarding it; then closes both. With a
    /// cut (server to client only), stops after the head and that many body bytes, having forwarded (and
    /// recorded) exactly those.
    private func copy(
        from source: TCPSocket, to destination: TCPSocket, as direction: Direction, exchange: Int,
        cutAfterBodyBytes cut: Int?
    ) async {
        var buffer: [UInt8] = []
        var limit: Int?  // total bytes to forward, known once the head's end is seen
        var forwarded = 0
        while true {
            buffer.removeAll(keepingCapacity: true)
            let read = try? await source.read(
                into: &buffer, maxBytes: 64 * 1024, deadline: .after(Self.timeout))
            guard let count = read, count > 0 else { break }
            var piece = buffer[...]
            if let cut {
                let sofar = state.withLock { $0.exchanges[exchange].response } + buffer
                if limit == nil, let headEnd = Self.headEnd(in: sofar) { limit = headEnd + cut }
                if let limit { piece = piece.prefix(max(0, limit - forwarded)) }
            }
            state.withLock { state in
                state.pieces.append(Piece(direction: direction, bytes: Array(piece)))
                switch direction {
                case .clientToServer: state.exchanges[exchange].request += piece
                case .serverToClient: state.exchanges[exchange].response += piece
                }
            }
            do {
                try await destination.write(piece, deadline: .after(Self.timeout))
            } catch {
                break
            }
            forwarded += piece.count
            if let limit, forwarded >= limit { break }
        }
        await source.close()
        await destination.close()
    }

    /// The index just past the first CRLF CRLF of `bytes`, or nil when the head is not complete yet.
    static func headEnd(in bytes: [UInt8]) -> Int? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        for start in 0...(bytes.count - 4) where bytes[start..<(start + 4)].elementsEqual(terminator) {
            return start + 4
        }
        return nil
    }
}

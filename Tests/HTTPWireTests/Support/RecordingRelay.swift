// RecordingRelay: a loopback TCP relay that records every byte passing through it (test support).
//
// The client connects to the relay as if it were the server; the relay opens its own connection to the
// real server and copies bytes both ways, writing down each piece with its direction before forwarding it.
// So a test sees exactly what crossed the wire — the client's request bytes as send(2) wrote them and the
// server's response bytes as recv(2) read them — without changing the client or the server. The
// LifeOfARequest article quotes bytes recorded this way. It knows no HTTP: it copies bytes.

import HTTPWire
import Synchronization

/// Relays connections from a local port to `target` and records the traffic in arrival order.
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

    private struct State {
        var pieces: [Piece] = []
        var sockets: [TCPSocket] = []
        var tasks: [Task<Void, Never>] = []
        var acceptedConnections = 0
    }

    private let listener: Listener
    private let targetPort: Int
    private let state = Mutex(State())
    private let acceptTask = Mutex<Task<Void, Never>?>(nil)

    /// Every wait is bounded, so a stuck peer fails the test instead of hanging it.
    static let timeout = Duration.seconds(20)

    private init(listener: Listener, targetPort: Int) {
        self.listener = listener
        self.targetPort = targetPort
    }

    /// Starts relaying from a free loopback port to `127.0.0.1:targetPort`.
    static func start(targetPort: Int) throws -> RecordingRelay {
        let relay = RecordingRelay(listener: try Listener.bind(host: "127.0.0.1", port: 0), targetPort: targetPort)
        let task = Task { await relay.acceptLoop() }
        relay.acceptTask.withLock { $0 = task }
        return relay
    }

    /// The port clients connect to.
    var port: Int { listener.port }

    /// Connections the relay accepted (each one is a connection the client opened).
    var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }

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
            let deadline = Deadline.after(Self.timeout, phase: .connect)
            guard let server = try? await TCPSocket.connect(host: "127.0.0.1", port: targetPort, deadline: deadline)
            else {
                await client.close()
                continue
            }
            let upstream = Task { await Self.copy(from: client, to: server, as: .clientToServer, relay: self) }
            let downstream = Task { await Self.copy(from: server, to: client, as: .serverToClient, relay: self) }
            state.withLock { state in
                state.acceptedConnections += 1
                state.sockets += [client, server]
                state.tasks += [upstream, downstream]
            }
        }
    }

    /// Copies until either side closes, recording each piece before forwarding it; then closes both.
    private static func copy(
        from source: TCPSocket, to destination: TCPSocket, as direction: Direction, relay: RecordingRelay
    ) async {
        var buffer: [UInt8] = []
        while true {
            buffer.removeAll(keepingCapacity: true)
            let read = try? await source.read(
                into: &buffer, maxBytes: 64 * 1024, deadline: .after(timeout, phase: .body))
            guard let count = read, count > 0 else { break }
            relay.state.withLock { $0.pieces.append(Piece(direction: direction, bytes: buffer)) }
            do {
                try await destination.write(buffer[...], deadline: .after(timeout, phase: .send))
            } catch {
                break
            }
        }
        await source.close()
        await destination.close()
    }
}

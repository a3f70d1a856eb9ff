// BlackHole: a loopback address where a connect hangs until its deadline (test support for connect
// timeouts and Happy Eyeballs).
//
// A listener that never accepts, bound with the smallest backlog, takes one connection into its accept
// queue; once the queue is full the kernel drops further SYNs, and a connect to it neither succeeds nor
// fails — like a broken address family, without a packet leaving the machine. `open()` connects until a
// connect hangs, so the hole is known to be full instead of hoped to be: on loopback a connect with room in
// the queue completes at once, and the probe's deadline (scaled) only has to outlast a busy reactor.

import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

/// A full listener: connects to ``address`` hang.
struct BlackHole {
    let listener: Listener
    /// The connections that fill the accept queue.
    let fillers: [TCPSocket]

    /// Where a connect hangs.
    var address: SocketAddress { listener.localAddress }
    var port: Int { listener.port }

    /// Binds the listener and fills its queue; throws when no connect ever hung.
    static func open() async throws -> BlackHole {
        let listener = try Listener.bind(host: "127.0.0.1", port: 0, backlog: 0)
        var fillers: [TCPSocket] = []
        var isFull = false
        for _ in 0..<8 where !isFull {
            do {
                fillers.append(
                    try await TCPSocket.connect(
                        to: listener.localAddress, deadline: .after(.seconds(1).scaled)))
            } catch TransportError.timedOut {
                isFull = true
            }
        }
        if !isFull {
            for filler in fillers { await filler.close() }
            await listener.close()
        }
        try #require(isFull, "could not fill the accept queue of \(listener)")
        return BlackHole(listener: listener, fillers: fillers)
    }

    /// Closes the fillers and the listener.
    func close() async {
        for filler in fillers { await filler.close() }
        await listener.close()
    }
}

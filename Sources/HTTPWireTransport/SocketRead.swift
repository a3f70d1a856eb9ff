// SocketRead: one read from a plain TCP socket into the caller's buffer, as a single reactor operation
// (transport layer).
//
// The general form of an operation is a closure (`ReactorOperation`); a read through it costs three
// objects — the box that lends the caller's buffer to the reactor thread (`ReceiveBuffer`), the closure's
// captured context and the operation — plus the continuation's. The read is the one operation every response
// waits on, so it has its own class that holds the buffer, the attempt and the continuation: two allocations
// per parked read instead of four (counted with a malloc probe, docs/benchmarks.md, "Allocations per
// request"). A TLS read stays a closure: OpenSSL decides what is read, not this file.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A `recv` of up to `maxBytes` bytes appended to a caller's buffer, attempted on the caller's thread or
/// parked in the reactor until the socket is readable.
///
/// The buffer is moved in (the caller's variable is left empty, so the storage stays uniquely referenced
/// and grows in place) and moved back with ``takeBytes()`` once the read has ended, whichever way it ended;
/// in between only the thread making the attempt touches it (see ``ReceiveBuffer`` for why it is moved, not
/// copied). A read of 0 bytes is the end of the stream, unless the connection was reset
/// (``TCPSocket/wasReset(_:)``).
final class SocketRead: AwaitedReactorOperation<Int>, @unchecked Sendable {
    /// The caller's bytes; what a read receives is appended at the end.
    private var bytes: [UInt8]
    private let maxBytes: Int

    init(descriptor: FileDescriptor, deadline: Deadline, taking buffer: inout [UInt8], maxBytes: Int) {
        bytes = buffer
        buffer = []
        self.maxBytes = maxBytes
        super.init(descriptor: descriptor, deadline: deadline)
    }

    /// The buffer with what the read appended, leaving the operation empty.
    func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        return taken
    }

    // The same code as the base class's, specialized for `Int` here: no run-time metadata lookups on the read
    // every response waits on (see `AwaitedReactorOperation.attemptStep()`).
    override func attempt() -> Interest? { attemptStep() }

    override func fail(_ error: any Error) {
        finish(.failure(error))
    }

    override func step() throws -> ReactorStep<Int> {
        guard let number = descriptor?.rawValue else { preconditionFailure("a socket read without a socket") }
        do {
            var asked = 0
            let count = try bytes.appendReceived(upTo: maxBytes) { address, capacity in
                asked = capacity
                switch try Syscall.run("recv", { recv(number, address, capacity, 0) }) {
                case .done(let count): return count
                case .wouldBlock: return nil
                }
            }
            guard let count else { return .wait(.readable) }
            // TCP's recv returns less than asked only when the receive queue ran out (a non-blocking call
            // does not wait for more): nothing unread is left behind that no edge would announce.
            emptiedSocket = count > 0 && count < asked
            if count == 0, TCPSocket.wasReset(number) {
                throw TransportError.receiveFailed(errno: ECONNRESET)
            }
            return .finished(count)
        } catch let error as SystemCallError {
            throw TransportError.receiveFailed(errno: error.errno)
        }
    }
}

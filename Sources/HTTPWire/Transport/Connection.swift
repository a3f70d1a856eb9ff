// Connection: the byte stream the layers above HTTPWire's transport talk to (transport layer).
//
// A connection is a plain TCP socket or a TLS stream over one; the pool and the client use either through
// this protocol and never see a descriptor, an `SSL*` or errno. Reads append to a caller-owned `[UInt8]`
// so that a buffer with spare capacity is reused from read to read (no allocation per read), and the
// received bytes can be handed to the codec as an `ArraySlice` without another copy. Every call takes a
// `Deadline`; when it passes, or the calling task is cancelled, the connection is closed and the call
// throws `HTTPWireError.timedOut(phase)` or `CancellationError`. This file holds the protocol and the
// receive-buffer plumbing shared by both kinds of stream; it makes no system call.

/// A bidirectional byte stream: plain TCP (`TCPSocket`) or TLS (`TLSStream`).
///
/// ```swift
/// var buffer: [UInt8] = []
/// buffer.reserveCapacity(ConnectionReadSize.body)
/// try await connection.write(Array("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".utf8)[...], deadline: send)
/// while try await connection.read(into: &buffer, maxBytes: ConnectionReadSize.body, deadline: head) > 0 { ... }
/// await connection.close()
/// ```
package protocol Connection: AnyObject, Sendable {
    /// Appends at most `maxBytes` received bytes to `buffer` and returns how many; 0 means the peer
    /// finished sending (end of stream). Waits until at least one byte or the end arrives.
    /// Throws `HTTPWireError.receiveFailed(errno:)`, `timedOut(deadline.phase)`, `CancellationError`.
    func read(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline) async throws -> Int

    /// Sends all of `bytes`. Throws `HTTPWireError.sendFailed(errno:)` (a reset or closed peer, without
    /// SIGPIPE), `timedOut(deadline.phase)`, `CancellationError`.
    func write(_ bytes: ArraySlice<UInt8>, deadline: Deadline) async throws

    /// Closes the connection (after a TLS close_notify); pending calls fail with `CancellationError`, and
    /// so do calls made afterwards. Returns once the descriptor is closed; calling it again does nothing.
    func close() async

    /// Whether the connection has not been closed (by `close()`, a cancellation or an expired deadline).
    var isOpen: Bool { get }
}

extension Connection {
    /// Sends all of `bytes`; see `write(_:deadline:)`.
    package func write(_ bytes: [UInt8], deadline: Deadline) async throws {
        try await write(bytes[...], deadline: deadline)
    }
}

/// Read sizes for bodies. Measured on loopback (release build, 1 GiB, both ends in one process, 2 cores;
/// `TransportTests.Measurements`): 64 KiB reads moved 2.25 GB/s, 256 KiB 3.0 GB/s, 512 KiB to 4 MiB
/// 3.1–3.2 GB/s. 256 KiB takes nearly all of the gain: a quarter of the reactor round trips of 64 KiB
/// reads, while larger buffers gain little because a read rarely finds more waiting in the socket.
package enum ConnectionReadSize {
    /// The `maxBytes` to use for body reads.
    package static let body = 256 * 1024
}

/// A caller's receive buffer, lent to the reactor thread for one read.
///
/// The array is moved in (the caller's variable is left empty, so the storage stays uniquely referenced
/// and grows in place) and moved back with ``takeBytes()`` when the read ends, whichever way it ends. Only
/// the reactor thread touches it in between; the continuation's resume orders that before the caller sees
/// it again. Moved back, not copied back: the operation that captured this box is released by the reactor
/// thread some time after the resume, and a box still referencing the storage then would make the caller's
/// next read find it shared and allocate a fresh 256 KiB buffer (measured: one mmap, 64 page faults and a
/// munmap per read on TLS and chunked bodies, whose reads wait in the reactor).
final class ReceiveBuffer: @unchecked Sendable {
    /// The caller's bytes; new bytes are appended at the end.
    var bytes: [UInt8]

    init(taking bytes: inout [UInt8]) {
        self.bytes = bytes
        bytes = []
    }

    /// The bytes, leaving the box empty.
    func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        return taken
    }

    /// Appends up to `maxBytes` bytes that `fill` writes at the given address; `fill` returns how many it
    /// wrote, or nil when nothing could be read yet (the descriptor would block).
    func append(upTo maxBytes: Int, _ fill: (UnsafeMutableRawPointer, Int) throws -> Int?) throws -> Int? {
        precondition(maxBytes > 0, "a read of \(maxBytes) bytes")
        var produced: Int?
        var failure: (any Error)?
        bytes.append(addingCapacity: maxBytes) { span in
            span.withUnsafeMutableBufferPointer { free, count in
                guard let address = free.baseAddress else { return }
                do {
                    produced = try fill(UnsafeMutableRawPointer(address), min(maxBytes, free.count))
                    count = produced ?? 0
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        return produced
    }
}

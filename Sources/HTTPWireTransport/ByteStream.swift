// ByteStream: the byte stream the layers above HTTPWire's transport talk to (transport layer).
//
// A stream is a plain TCP socket or a TLS stream over one; the pool and the client use either through
// this protocol and never see a descriptor, an `SSL*` or errno. Reads append to a caller-owned `[UInt8]`
// so that a buffer with spare capacity is reused from read to read (no allocation per read), and the
// received bytes can be handed to the codec as an `ArraySlice` without another copy. Every call takes a
// `Deadline`; when it passes, or the calling task is cancelled, the stream is closed and the call throws
// `TransportError.timedOut` or `CancellationError`. This file holds the protocol and the read size; it
// makes no system call.

/// A bidirectional byte stream: plain TCP (`TCPSocket`) or TLS (`TLSStream`).
///
/// ```swift
/// var buffer: [UInt8] = []
/// buffer.reserveCapacity(ConnectionReadSize.body)
/// try await stream.write(Array("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".utf8)[...], deadline: send)
/// while try await stream.read(into: &buffer, maxBytes: ConnectionReadSize.body, deadline: head) > 0 { ... }
/// await stream.close()
/// ```
package protocol ByteStream: AnyObject, Sendable {
    /// Appends at most `maxBytes` received bytes to `buffer` and returns how many; 0 means the peer
    /// finished sending (end of stream). Waits until at least one byte or the end arrives.
    /// Throws `TransportError.receiveFailed(errno:)`, `TransportError.timedOut`, `CancellationError`.
    func read(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline) async throws -> Int

    /// `read(into:maxBytes:deadline:)` for the first read after the caller wrote something the peer must
    /// answer (a request head): nothing can have arrived yet, so a plain socket skips the attempt that would
    /// only meet `EAGAIN` and waits for readiness at once (`Reactor.performAwaitingReadable`). Same result,
    /// one system call fewer per request; a TLS stream reads as usual.
    func readAfterSending(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline) async throws -> Int

    /// Sends all of `bytes`. Throws `TransportError.sendFailed(errno:)` (a reset or closed peer, without
    /// SIGPIPE), `TransportError.timedOut`, `CancellationError`.
    func write(_ bytes: ArraySlice<UInt8>, deadline: Deadline) async throws

    /// Closes the stream (after a TLS close_notify); pending calls fail with `CancellationError`, and
    /// so do calls made afterwards. Returns once the descriptor is closed; calling it again does nothing.
    func close() async

    /// Whether the stream has not been closed (by `close()`, a cancellation or an expired deadline).
    var isOpen: Bool { get }
}

extension ByteStream {
    /// A stream with no cheaper way reads as usual.
    package func readAfterSending(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline) async throws
        -> Int
    {
        try await read(into: &buffer, maxBytes: maxBytes, deadline: deadline)
    }

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

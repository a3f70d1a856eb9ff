// ReceiveBuffer: a caller's receive buffer lent to the reactor thread for one read (transport layer).
//
// Reads append to a caller-owned `[UInt8]`, so storage with spare capacity is reused from read to read. While
// a read waits in the reactor the array lives in this box, owned by the reactor thread; it goes back to the
// caller when the read ends, whichever way it ends. This file makes no system call itself: the stream's read
// closure fills the free capacity. The box serves TLS reads, whose attempt is a closure around OpenSSL; a
// plain socket's read holds its buffer in its own operation object (`SocketRead`), and both append through
// `appendReceived(upTo:_:)` below.

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
        try bytes.appendReceived(upTo: maxBytes, fill)
    }
}

extension [UInt8] {
    /// Appends up to `maxBytes` bytes that `fill` writes into the spare capacity (grown if needed); `fill`
    /// returns how many it wrote, or nil when nothing could be read yet (the descriptor would block).
    mutating func appendReceived(upTo maxBytes: Int, _ fill: (UnsafeMutableRawPointer, Int) throws -> Int?)
        throws -> Int?
    {
        precondition(maxBytes > 0, "a read of \(maxBytes) bytes")
        var produced: Int?
        var failure: (any Error)?
        append(addingCapacity: maxBytes) { span in
            span.withUnsafeMutableBufferPointer { free, count in
                guard let address = free.baseAddress else { return }
                do {
                    produced = try fill(UnsafeMutableRawPointer(address), Swift.min(maxBytes, free.count))
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

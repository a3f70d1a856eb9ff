// FileRegionReader: reads a FileRegion in large blocks into a buffer the caller reuses, and refuses to hand
// out the last block of a file whose size is no longer the one announced.
// Bodies layer: blocking pread(2)/fstat(2) on one file, through the transport's `DiskFile`. It must not run
// on the reactor thread or the cooperative pool — the client calls it on its BlockingWorker thread — and it
// knows nothing of sockets.
//
// Two paths send a file region. Plain HTTP gives `file` to sendfile(2) for all but the region's
// last block and reports those bytes with `bytesMovedOutOfBand(_:)`; TLS needs the bytes in user space to
// encrypt them. Both take the blocks they write (over TLS all of them, on plain HTTP the last one) from
// `readNextBlock(into:)`, which fills one 256 KiB buffer at a time, so the memory used stays the same for a
// 10 KiB or a 10 GiB file, and the size check before the last block runs on both.
//
// The size check is what keeps a request honest. Content-Length was computed from the file's size when
// the body was prepared (RFC 9112 §6.2: the body is exactly that many bytes). If the file has shrunk, the
// read comes up short; if it has grown, the bytes sent would be a stale prefix of the new file. In both
// cases the reader throws `HTTPWireError.localFileChanged` *before* returning the region's last block, so
// the server never receives a complete-looking body; the client then closes the connection.

import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Reads one `FileRegion` front to back, checking that the file keeps the size the region announced.
///
/// The reader owns its open file (it is `~Copyable`, so exactly one owner closes it, in `deinit`). Every
/// method does blocking disk I/O: call them from a thread that may block.
///
/// ```swift
/// var reader = try FileRegionReader(region: region)
/// var block: [UInt8] = []
/// while try reader.readNextBlock(into: &block) {
///     try send(block)          // e.g. SSL_write over TLS; the same buffer is refilled next time
/// }
/// ```
struct FileRegionReader: ~Copyable, Sendable {
    /// 256 KiB: large enough that the per-call cost of pread(2) and of a TLS record batch is small beside
    /// the copy, small enough that many uploads at once stay cheap in memory.
    static let defaultBlockSize = 256 * 1024

    /// The region being read.
    let region: FileRegion
    /// The open file, for sendfile(2) on plain HTTP. The reader keeps ownership and closes it; a caller
    /// that moves bytes itself reports them with ``bytesMovedOutOfBand(_:)`` so the checks still run.
    let file: DiskFile
    /// The most bytes one ``readNextBlock(into:)`` returns.
    let blockSize: Int
    /// The absolute file offset of the next byte to read.
    private var position: Int64

    /// Opens the region's file and checks, before any byte is read, that it still has the expected size.
    ///
    /// Throws ``HTTPWireError/localReadFailed(path:errno:)`` when the file cannot be opened or is not a
    /// regular file, or when the region's offset or length is negative (`EINVAL`), and
    /// ``HTTPWireError/localFileChanged(path:expectedSize:actualSize:)`` when its size differs.
    init(region: FileRegion, blockSize: Int = FileRegionReader.defaultBlockSize) throws(HTTPWireError) {
        guard region.offset >= 0, region.length >= 0, blockSize > 0 else {
            throw HTTPWireError.localReadFailed(path: region.path, errno: EINVAL)
        }
        guard region.offset + region.length <= region.expectedFileSize else {
            throw HTTPWireError.localFileChanged(
                path: region.path, expectedSize: region.offset + region.length, actualSize: region.expectedFileSize)
        }
        let file = try HTTPWireError.local { () throws(TransportError) in
            try DiskFile.open(region.path, for: .reading)
        }
        // Checked before `self` exists, so this init closes the file itself on failure; afterwards `deinit` does.
        let size: Int64
        do {
            size = try FileRegion.currentSize(of: file)
        } catch {
            file.close()
            throw error
        }
        guard size == region.expectedFileSize else {
            file.close()
            throw HTTPWireError.localFileChanged(
                path: region.path, expectedSize: region.expectedFileSize, actualSize: size)
        }
        self.region = region
        self.file = file
        self.blockSize = blockSize
        self.position = region.offset
    }

    deinit {
        file.close()
    }

    /// Bytes of the region not read (or not reported as sent) yet.
    var remainingBytes: Int64 { region.offset + region.length - position }

    /// Replaces `buffer`'s contents with the next block of the region, at most ``blockSize`` bytes, and
    /// returns true; returns false, leaving `buffer` empty, once the whole region has been returned.
    ///
    /// The buffer's storage is reused from one call to the next when the caller holds no other reference
    /// to it, so a whole upload allocates one block. Before returning the region's last block, the file's
    /// size is checked again: a file that grew or shrank while being read throws
    /// ``HTTPWireError/localFileChanged(path:expectedSize:actualSize:)`` and the block is withheld. A read
    /// error throws ``HTTPWireError/localReadFailed(path:errno:)``.
    mutating func readNextBlock(into buffer: inout [UInt8]) throws(HTTPWireError) -> Bool {
        let wanted = Int(min(Int64(blockSize), remainingBytes))
        // Resize without giving up capacity: the last block shrinks the array, and only the first call
        // ever grows it (with zeros that pread overwrites at once).
        if buffer.count > wanted {
            buffer.removeLast(buffer.count - wanted)
        } else if buffer.count < wanted {
            buffer.append(contentsOf: repeatElement(0, count: wanted - buffer.count))
        }
        guard wanted > 0 else { return false }
        try fill(&buffer)
        position += Int64(wanted)
        if remainingBytes == 0 {
            try checkFileUnchanged()
        }
        return true
    }

    /// Records that `count` bytes of the region were sent without this reader, for example by sendfile(2)
    /// from ``file``; when that completes the region, the file's size is checked as
    /// ``readNextBlock(into:)`` would. A sendfile(2) that returns 0 before the region is done means the
    /// file shrank: call ``checkFileUnchanged()`` to turn that into the error.
    ///
    /// sendfile(2) puts bytes on the wire before any check can run, so a file that grows at the last moment
    /// would be noticed only after a complete-looking body left. To keep the "last block withheld"
    /// guarantee, let sendfile(2) move all but the region's final block and send that one with
    /// ``readNextBlock(into:)``, which reads from where this method left the position.
    mutating func bytesMovedOutOfBand(_ count: Int64) throws(HTTPWireError) {
        position += min(count, remainingBytes)
        if remainingBytes == 0 {
            try checkFileUnchanged()
        }
    }

    /// Throws ``HTTPWireError/localFileChanged(path:expectedSize:actualSize:)`` unless the file's size is
    /// still the region's `expectedFileSize` (or a read error if fstat(2) itself fails).
    func checkFileUnchanged() throws(HTTPWireError) {
        let size = try FileRegion.currentSize(of: file)
        guard size == region.expectedFileSize else {
            throw HTTPWireError.localFileChanged(
                path: region.path, expectedSize: region.expectedFileSize, actualSize: size)
        }
    }

    /// Fills all of `buffer` from `position`, looping over short reads. pread(2) leaves the shared file
    /// offset alone, so the same file may be read by several readers at once (a request sent again).
    private func fill(_ buffer: inout [UInt8]) throws(HTTPWireError) {
        let start = position
        let file = self.file
        let outcome = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(TransportError) in try file.readFully(into: bytes, at: start) }
        }
        let filled = try HTTPWireError.local { () throws(TransportError) in try outcome.get() }
        guard filled < buffer.count else { return }
        // The end of the file before the region's end: it shrank. The size now, for the message; if even
        // fstat fails, the offset where reading stopped.
        let size = (try? FileRegion.currentSize(of: file)) ?? start + Int64(filled)
        throw HTTPWireError.localFileChanged(path: region.path, expectedSize: region.expectedFileSize, actualSize: size)
    }
}

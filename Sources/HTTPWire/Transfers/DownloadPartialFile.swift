// DownloadPartialFile: the part file of one download on disk — open and cut to the resume offset, written
// in large blocks, made durable, hashed, and finally renamed onto the destination.
// Downloads layer: blocking file calls through the transport's `DiskFile` and `FileSystem`. Every method here
// blocks and runs on the BlockingWorker thread, never on the cooperative pool; the download awaits each call
// before making the next, so the object has one user at a time. It must not talk to the network or decide
// whether to resume.
//
// Crash consistency rests on one order: bytes are written, then `fdatasync`ed, then a record counting them
// replaces the old one (`ResumeRecord.write`, itself write + fsync + rename). After a crash the record never
// counts a byte that is not on disk; bytes past its count may be missing or garbage, and a resume cuts them
// off. A `kill -9` keeps everything written (the page cache survives the process): the progress mark
// `dest.part.mark` counts those bytes within 5 ms of each write, and `inspect()` trusts it on the same
// boot only (`DownloadCommitter` has the schedule, `BootIdentity` the reason).

import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// The part file `dest.part` of a download, with its resume record `dest.part.resume`.
///
/// ```swift
/// let file = DownloadPartialFile(destination: "big.iso")
/// try file.open(truncatingTo: 0, record: record, hashing: false)   // on the blocking worker
/// try file.write(pieces)   // a block's body, in order
/// try DownloadPartialFile.commit(file.file!, record: committed, destination: "big.iso")
/// let location = try file.finish(expectedLength: 4_000_000, expectedSHA256: nil)
/// ```
final class DownloadPartialFile: @unchecked Sendable {
    // @unchecked: one download owns this object and awaits each blocking call before the next; only the
    // static `commit` may run beside a `write`, and it touches no stored property.

    /// The final path of the file.
    let destination: String
    /// `dest.part`.
    let partialPath: String
    /// `dest.part.resume`.
    let recordPath: String
    /// `dest.part.mark`: the progress mark, bytes written but not flushed, trusted on the same boot only.
    let markPath: String
    /// The open part file, or nil.
    private(set) var file: DiskFile?
    /// Bytes from offset 0 that are in the part file (written or spliced), contiguous.
    private(set) var writtenBytes: Int64 = 0
    /// The digest of bytes `0..<hashedBytes`, when a checksum was asked for.
    private var hasher: SHA256Hasher?
    private var hashedBytes: Int64 = 0

    /// The files of the download to `destination`; nothing is opened yet.
    init(destination: String) {
        self.destination = destination
        self.partialPath = ResumeRecord.partialFilePath(forDestination: destination)
        self.recordPath = ResumeRecord.recordPath(forDestination: destination)
        self.markPath = ResumeRecord.markPath(forDestination: destination)
    }

    deinit {
        file?.close()
    }

    /// Runs `work` on the BlockingWorker and waits for it to finish even when the calling task is
    /// cancelled: a write or commit abandoned half-way would leave the file and the record out of step
    /// with what the download believes.
    static func runBlocking<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await BlockingWorker.shared.runToCompletion(work)
    }

    // MARK: Looking (blocking)

    /// The size of the file at `path`, or nil when it does not exist or cannot be examined.
    static func fileSize(atPath path: String) -> Int64? {
        guard let status = try? FileSystem.status(ofPath: path), status.isRegularFile else { return nil }
        return status.size
    }

    /// The record a resume can start from, and the part file's size. The flushed record, unless the
    /// progress mark beside it counts more and can be trusted: it was written on this boot (so the bytes
    /// it counts are still in the page cache, or on disk), it describes the same representation, and the
    /// part file is large enough to hold what it counts. A damaged or foreign mark is ignored, never
    /// fatal: the record is the fallback.
    func inspect() -> (record: ResumeRecord?, partialFileSize: Int64?) {
        let size = Self.fileSize(atPath: partialPath)
        guard case .valid(let record) = ResumeRecord.load(fromPath: recordPath) else { return (nil, size) }
        guard let size, let bootID = BootIdentity.current,
            case .valid(let mark) = ResumeRecord.loadMark(fromPath: markPath),
            mark.bootID == bootID, mark.isSameRepresentation(as: record), mark.committedBytes > record.committedBytes
        else { return (record, size) }
        // Single stream: the count is a prefix of the file. Segments: the file has its full length.
        let holdsMark = mark.segments.isEmpty ? size >= mark.committedBytes : size == mark.expectedLength
        guard holdsMark else { return (record, size) }
        return (mark.counting(mark.committedBytes, segments: mark.segments), size)
    }

    /// Deletes the part file, its record and its mark (and their temporary files left by a crash).
    func discard() throws(HTTPWireError) {
        closeDescriptor()
        for path in [markPath, markPath + ".tmp", partialPath, recordPath, recordPath + ".tmp"] {
            try ResumeRecord.remove(atPath: path)
        }
    }

    // MARK: Writing (blocking)

    /// Opens (creating) the part file, cuts it to `offset` bytes — bytes past the record's count may be
    /// garbage after a crash — and writes `record` (which counts those `offset` bytes) before any body byte
    /// arrives, so even a download killed at once leaves its validators behind. With `hashing`, the bytes
    /// kept are read back and digested now, so the body can be digested as it is written.
    /// The mark goes first when it may count bytes the cut is about to remove; when the download resumes
    /// from it, it goes only once `record` is flushed (``removeMark(around:_:)``).
    func open(truncatingTo offset: Int64, record: ResumeRecord, hashing: Bool) throws(HTTPWireError) {
        try removeMark(around: record) { () throws(HTTPWireError) in
            try openTruncating(to: offset, record: record, hashing: hashing)
        }
    }

    private func openTruncating(to offset: Int64, record: ResumeRecord, hashing: Bool) throws(HTTPWireError) {
        closeDescriptor()
        let path = partialPath
        let opened = try HTTPWireError.local { () throws(TransportError) in
            try DiskFile.open(path, for: .writing(creating: true))
        }
        file = opened
        try HTTPWireError.local { () throws(TransportError) in try opened.truncate(to: offset) }
        writtenBytes = offset
        hasher = hashing ? SHA256Hasher() : nil
        hashedBytes = 0
        try hashRemainder()
        try Self.commit(opened, record: record, destination: destination)
    }

    /// Opens (creating) the part file of a segmented download at its full `length` — cut when longer,
    /// extended with a hole when shorter, the bytes the segments count left in place — and writes `record`
    /// (with its segments) before any body byte. The bytes are written at their own offsets with
    /// ``write(_:at:)``; ``segmentsFinished(length:)`` makes the file whole for `finish`.
    func openSegmented(length: Int64, record: ResumeRecord, hashing: Bool) throws(HTTPWireError) {
        try removeMark(around: record) { () throws(HTTPWireError) in
            try openAtFullLength(length, record: record, hashing: hashing)
        }
    }

    private func openAtFullLength(_ length: Int64, record: ResumeRecord, hashing: Bool) throws(HTTPWireError) {
        closeDescriptor()
        let path = partialPath
        let opened = try HTTPWireError.local { () throws(TransportError) in
            try DiskFile.open(path, for: .writing(creating: true))
        }
        file = opened
        try HTTPWireError.local { () throws(TransportError) in try opened.truncate(to: length) }
        writtenBytes = 0
        hasher = hashing ? SHA256Hasher() : nil
        hashedBytes = 0
        try Self.commit(opened, record: record, destination: destination)
    }

    /// Runs `open`, which flushes the part file and writes `record`, with the progress mark removed before
    /// or after it. After, when the mark counts exactly what `record` counts (the download resumes from
    /// the mark): a kill during the flush — which can take a fifth of a second on a busy disk — then
    /// leaves the mark in place, and the next run resumes from it again rather than from the older record.
    /// Before, in every other case: the mark may count bytes that the open cuts or replaces.
    private func removeMark(around record: ResumeRecord, _ open: () throws(HTTPWireError) -> Void)
        throws(HTTPWireError)
    {
        let resumesFromMark: Bool
        if case .valid(let mark) = ResumeRecord.loadMark(fromPath: markPath) {
            resumesFromMark =
                mark.isSameRepresentation(as: record) && mark.committedBytes == record.committedBytes
                && mark.segments == record.segments
        } else {
            resumesFromMark = false
        }
        if !resumesFromMark { try ResumeRecord.remove(atPath: markPath) }
        try open()
        if resumesFromMark { try ResumeRecord.remove(atPath: markPath) }
    }

    /// Writes `bytes` at `offset` (a segment's next byte), from any of the download's connections: pwrite
    /// names its offset, so writers of different segments never disturb each other. Blocking.
    static func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64, to file: DiskFile) throws(HTTPWireError) {
        try HTTPWireError.local { () throws(TransportError) in try file.write(bytes, at: offset) }
    }

    /// Every segment is complete: the file holds `length` bytes, all of them body, and `finish` digests
    /// them from the start (segments arrive out of order, so nothing was digested on the way).
    func segmentsFinished(length: Int64) {
        writtenBytes = length
        hashedBytes = 0
    }

    /// The part file's size now (fstat); for a segmented download that failed part-way. Blocking.
    var sizeOnDisk: Int64? { try? file?.status().size }

    /// Appends `pieces`, in order, at the end of the written region with one `pwritev` (a block's body:
    /// the whole block, or a chunked body's data between its framing), looping over short writes. A full
    /// disk (`ENOSPC`) or any other failure throws `localWriteFailed`; the bytes written before stay.
    func write(_ pieces: [UnsafeRawBufferPointer]) throws(HTTPWireError) {
        guard let file else { throw .localWriteFailed(path: partialPath, errno: EBADF) }
        let offset = writtenBytes
        do {
            try HTTPWireError.local { () throws(TransportError) in try file.write(pieces, at: offset) }
        } catch {
            // Bytes written before the failure (a full disk part-way) are body, in order: count them.
            if let size = try? file.status().size, size > writtenBytes { writtenBytes = size }
            throw error
        }
        let length = pieces.reduce(0) { $0 + $1.count }
        if hasher != nil, hashedBytes == writtenBytes {
            for piece in pieces { hasher?.update(piece) }
            hashedBytes += Int64(length)
        }
        writtenBytes += Int64(length)
    }

    /// Counts `count` bytes that splice(2) put into the file at the end of the written region. Not a
    /// blocking call; the caller makes sure no `write` is in flight.
    func recordSpliced(_ count: Int64) {
        writtenBytes += count
    }

    /// After a splice(2) that failed part-way (a full disk), counts the bytes it did put in the file: the
    /// transport reports only the failure, but splice writes in order from the end of the written region,
    /// so everything between that end and the file's size is body, in sequence. Blocking (`fstat`).
    func recordSplicedBeforeFailure() {
        guard let size = try? file?.status().size, size > writtenBytes else { return }
        writtenBytes = size
    }

    /// Makes the part file's data durable, then replaces the record with `record`. The order is the whole
    /// point: a record must never count bytes that a crash could lose.
    static func commit(_ file: DiskFile, record: ResumeRecord, destination: String) throws(HTTPWireError) {
        try HTTPWireError.local { () throws(TransportError) in try file.synchronizeData() }
        let recordPath = ResumeRecord.recordPath(forDestination: destination)
        do {
            try record.write(toPath: recordPath)
        } catch .localWriteFailed(_, let code) where code == ENOSPC || code == EDQUOT {
            // A full disk has no room for the temporary file of the atomic replacement, which is exactly
            // when the count matters most (the download is about to stop). The old record already owns a
            // block, so rewriting it in place needs no new space. Less atomic, still safe: the record is
            // far below one 512-byte sector (written whole on any disk), and a torn one fails to decode,
            // which only means starting over.
            try rewriteInPlace(record, atPath: recordPath)
        }
    }

    /// Overwrites the existing record file at `path` with `record`, then flushes it.
    private static func rewriteInPlace(_ record: ResumeRecord, atPath path: String) throws(HTTPWireError) {
        guard let text = try? record.encoded() else { throw .localWriteFailed(path: path, errno: EINVAL) }
        let bytes = Array(text.utf8)
        try HTTPWireError.local { () throws(TransportError) in
            let file = try DiskFile.open(path, for: .writing(creating: false))
            defer { file.close() }
            try bytes.withUnsafeBytes { buffer in Result { () throws(TransportError) in try file.write(buffer, at: 0) }
            }
            .get()
            try file.truncate(to: Int64(bytes.count))
            try file.synchronizeData()
        }
    }

    /// Completes the download: checks the length, digests what was not digested while writing (a resumed
    /// prefix, spliced bytes) and compares it, makes the file durable, renames it onto the destination
    /// (atomic: the destination is the old file or the whole new one), removes the record and syncs the
    /// directory. Returns the digest when one was computed (the file was opened with `hashing`). On a checksum mismatch the part file and record
    /// stay, and nothing is renamed.
    func finish(expectedLength: Int64?, expectedSHA256: SHA256Digest?) throws(HTTPWireError) -> SHA256Digest? {
        if let expectedLength, writtenBytes != expectedLength {
            throw .bodyTruncated(expected: expectedLength, received: writtenBytes)
        }
        var digest: SHA256Digest?
        if hasher != nil {
            try hashRemainder()
            digest = hasher.take()?.finalize().flatMap { SHA256Digest(bytes: $0) }
        }
        if let expectedSHA256 {
            guard let digest, digest == expectedSHA256 else {
                throw .checksumMismatch(expected: expectedSHA256.hexString, actual: digest?.hexString ?? "unavailable")
            }
        }
        guard let file else { throw .localWriteFailed(path: partialPath, errno: EBADF) }
        let (partialPath, destination) = (self.partialPath, self.destination)
        try HTTPWireError.local { () throws(TransportError) in try file.synchronize() }
        closeDescriptor()
        try HTTPWireError.local { () throws(TransportError) in try FileSystem.rename(partialPath, to: destination) }
        try ResumeRecord.remove(atPath: recordPath)
        // Best effort: the file is complete either way; this makes the rename itself survive a power loss.
        try? FileSystem.synchronizeDirectory(containing: destination)
        return digest
    }

    /// Reads back and digests bytes `hashedBytes..<writtenBytes` in 1 MiB blocks (from the page cache,
    /// usually): the prefix kept from an earlier run, and at the end everything splice(2) wrote.
    private func hashRemainder() throws(HTTPWireError) {
        guard hasher != nil, hashedBytes < writtenBytes, let file else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while hashedBytes < writtenBytes {
            let wanted = Int(min(Int64(buffer.count), writtenBytes - hashedBytes))
            let offset = hashedBytes
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(TransportError) in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<wanted]), at: offset)
                }
            }
            let count = try HTTPWireError.local { () throws(TransportError) in try result.get() }
            guard count > 0 else { throw .localReadFailed(path: partialPath, errno: EIO) }
            buffer.withUnsafeBytes { hasher?.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            hashedBytes += Int64(count)
        }
    }

    /// Closes the part file; the data stays.
    func closeDescriptor() {
        file?.close()
        file = nil
    }
}

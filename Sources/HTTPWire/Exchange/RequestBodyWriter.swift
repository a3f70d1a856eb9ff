// RequestBodyWriter: puts a prepared request body on a connection, piece by piece (exchange layer).
//
// Bytes in memory are written in pieces of at most 256 KiB. File contents go out with sendfile(2) on plain
// HTTP (page cache to socket, no copy through HTTPWire) in pieces of 256 KiB to 4 MiB that UploadPieceSizer
// fits to the link; over TLS they go in 256 KiB blocks read on the blocking worker (the next block is read
// while the current one is encrypted and written). A stream of unknown length is chunk-encoded (RFC 9112
// §7.1). After every piece the owner is told, so it can report progress and stop sending when the server has
// already answered (RFC 9112 §9.5). Nothing is produced before the socket has taken the previous piece, so a
// body never sits in memory whole. It never reads from the connection.
//
// Why sendfile(2), measured on loopback with `UploadBench 1024 5` (a 1 GiB file on tmpfs PUT to
// FixtureServer's /sink, which reads in 1 MiB reads; two runs per path, alternated): sendfile ran at 1.35×
// and 1.46× `curl -T` (medians 5.2 and 5.5 GB/s, 0.16–0.21 s of CPU per GiB), 256 KiB pread+write blocks at
// 0.70× and 0.73× (2.6 GB/s, 0.37–0.38 s per GiB; curl 0.28 s). The sink spent the same 0.21–0.22 s per GiB
// under both, so the page fragments sendfile hands the socket cost the receiver nothing measurable. Against
// nginx's dav location, whose one worker copies every byte twice (socket → buffer → temp file) and is the
// ceiling for every client, 40 paired rounds per path of NetBench's dav row (`BENCH_ONLY=dav`) gave sendfile
// 0.95× curl and the blocks 1.07× (medians; quartiles 0.89–1.25 and 0.96–1.20), a difference inside that
// row's round-to-round spread. (An earlier run against nginx alone, before its 1 MiB body buffer, had
// favoured the blocks: about 1.05× against 0.75×.)
//
// The one rule every path keeps: a Content-Length body is never completed with bytes we cannot vouch for.
// The last block of each file region (sendfile moves only what comes before it) is read and handed out only
// after the file's size was checked again, so a file
// that grew or shrank during the upload fails with `HTTPWireError.localFileChanged` and the server sees a
// short body and a closed connection — never a complete-looking request built from two versions of a file.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one request body; `onPieceSent` returns false to stop early.
struct RequestBodyWriter {
    let connection: PooledConnection
    let deadline: @Sendable () -> Deadline
    /// Bytes of the body sent so far (payload bytes: chunked framing is not counted).
    private(set) var sentBytes: Int64 = 0
    /// How many bytes the next sendfile(2) piece may move.
    private var pieceSizer = UploadPieceSizer()
    /// The count last reported to the owner; -1 before the first report.
    private var reportedBytes: Int64 = -1

    /// The most bytes of an in-memory body written between two progress reports.
    static let memoryPieceBytes = 256 * 1024

    init(connection: PooledConnection, deadline: @escaping @Sendable () -> Deadline) {
        self.connection = connection
        self.deadline = deadline
    }

    /// Sends the whole body unless `onPieceSent` says stop. Returns true when the body was sent completely.
    /// `onPieceSent` hears the running count after every piece, and at least once, with the final count,
    /// for a body that needed no piece at all (an empty file), so progress always reaches the total.
    mutating func send(_ body: PreparedBody, onPieceSent: (Int64) -> Bool) async throws -> Bool {
        guard try await sendPieces(body, onPieceSent: onPieceSent) else { return false }
        if reportedBytes != sentBytes { _ = report(onPieceSent) }
        return true
    }

    /// Tells the owner how far the body is; false means stop.
    private mutating func report(_ onPieceSent: (Int64) -> Bool) -> Bool {
        reportedBytes = sentBytes
        return onPieceSent(sentBytes)
    }

    private mutating func sendPieces(_ body: PreparedBody, onPieceSent: (Int64) -> Bool) async throws -> Bool {
        switch body.source {
        case .none:
            return true
        case .bytes(let bytes):
            return try await sendBytes(bytes, onPieceSent: onPieceSent)
        case .file(let region):
            return try await sendFile(region, onPieceSent: onPieceSent)
        case .multipart(let prepared):
            var reader = prepared.makeReader()
            while let segment = reader.next() {
                switch segment {
                case .bytes(let bytes):
                    guard try await sendBytes(bytes, onPieceSent: onPieceSent) else { return false }
                case .file(let region):
                    guard try await sendFile(region, onPieceSent: onPieceSent) else { return false }
                }
            }
            return true
        case .stream(let sequence):
            return try await sendChunked(sequence, onPieceSent: onPieceSent)
        }
    }

    /// Bytes held in memory, in pieces of at most ``memoryPieceBytes`` so progress moves while a large
    /// buffer goes out.
    private mutating func sendBytes(_ bytes: [UInt8], onPieceSent: (Int64) -> Bool) async throws -> Bool {
        var start = 0
        repeat {
            let end = min(bytes.count, start + Self.memoryPieceBytes)
            try await connection.stream.write(bytes[start..<end], deadline: deadline())
            sentBytes += Int64(end - start)
            start = end
            guard report(onPieceSent) else { return false }
        } while start < bytes.count
        return true
    }

    /// RFC 9112 §7.1: each element of the sequence becomes one chunk; the last chunk (size 0) ends the body.
    /// Empty elements are skipped, since an empty chunk would end the body early.
    private mutating func sendChunked(
        _ sequence: any AsyncSequence<[UInt8], any Error> & Sendable, onPieceSent: (Int64) -> Bool
    ) async throws -> Bool {
        var chunk: [UInt8] = []
        for try await piece in sequence where !piece.isEmpty {
            chunk.removeAll(keepingCapacity: true)
            ChunkedEncoder.encodeChunk(piece, into: &chunk)
            try await connection.stream.write(chunk[...], deadline: deadline())
            sentBytes += Int64(piece.count)
            guard report(onPieceSent) else { return false }
        }
        chunk.removeAll(keepingCapacity: true)
        try ChunkedEncoder.encodeLastChunk(into: &chunk)
        try await connection.stream.write(chunk[...], deadline: deadline())
        return true
    }

    /// One file region. On plain TCP all of it but its last block goes out with sendfile(2), in pieces the
    /// sizer chooses; the last block (over TLS, every block) is read on the blocking worker and written, and
    /// comes out of `FileRegionReader.readNextBlock(into:)` only after the file's size was checked again.
    private mutating func sendFile(_ region: FileRegion, onPieceSent: (Int64) -> Bool) async throws -> Bool {
        let file = try await BlockingWorker.shared.run {
            FileReaderBox(try FileRegionReader(region: region))
        }
        defer { file.close() }
        let withheld = min(region.length, Int64(FileRegionReader.defaultBlockSize))
        if connection.isPlainTCP && region.length > withheld {
            guard
                try await sendFileOutOfBand(
                    file, region: region, count: region.length - withheld, onPieceSent: onPieceSent)
            else { return false }
        }
        // Read-ahead: while one block is written, the worker reads the next (disk and encryption overlap).
        var pending = Task { try await BlockingWorker.shared.run { try file.readNextBlock() } }
        defer { pending.cancel() }
        while true {
            guard let block = try await pending.value else { return true }
            pending = Task { try await BlockingWorker.shared.run { try file.readNextBlock() } }
            try await connection.stream.write(block[...], deadline: deadline())
            sentBytes += Int64(block.count)
            guard report(onPieceSent) else { return false }
        }
    }

    /// Moves the first `count` bytes of `region` with sendfile(2), in pieces the sizer chooses, reporting
    /// after each. Returns false when told to stop.
    private mutating func sendFileOutOfBand(
        _ file: FileReaderBox, region: FileRegion, count: Int64, onPieceSent: (Int64) -> Bool
    ) async throws -> Bool {
        let clock = ContinuousClock()
        var offset = region.offset
        var remaining = count
        while remaining > 0 {
            let piece = min(remaining, pieceSizer.nextPieceBytes)
            let start = clock.now
            let sent = try await connection.socket.sendFile(
                file.file, offset: offset, count: piece, deadline: deadline())
            pieceSizer.pieceSent(bytes: sent, in: clock.now - start)
            if sent == 0 {
                // sendfile(2) found the end of the file early: it shrank. Let the size check say so.
                try await BlockingWorker.shared.run { try file.checkUnchanged() }
                throw HTTPWireError.localReadFailed(path: region.path, errno: EIO)
            }
            // Bookkeeping only: the region's last block is still to come, so no size check runs here.
            try file.movedOutOfBand(sent)
            offset += sent
            remaining -= sent
            sentBytes += sent
            guard report(onPieceSent) else { return false }
        }
        return true
    }
}

/// A FileRegionReader that the writer and the blocking worker's closures share. A lock serialises its
/// users: the read-ahead block may still be read on the worker when the writer closes the file after a
/// failure, and the lock makes the read finish (or see the file closed) first.
final class FileReaderBox: Sendable {
    private struct State: ~Copyable {
        var reader: FileRegionReader?
        /// The block buffers, used in turn: one is being written while the other is filled, so neither is
        /// copied (each is uniquely referenced again when it is refilled, two blocks later).
        var buffers: [[UInt8]] = [[], []]
        var nextBuffer = 0
    }

    private let state: LockedState<State>
    /// The open file, for sendfile(2); valid until ``close()``.
    let file: DiskFile

    init(_ reader: consuming FileRegionReader) {
        file = reader.file
        state = LockedState(State(reader: Optional(consume reader)))
    }

    /// The next block, or nil at the end of the region or once the file is closed. Blocking disk I/O.
    func readNextBlock() throws(HTTPWireError) -> [UInt8]? {
        try state.withLock { (state) throws(HTTPWireError) -> [UInt8]? in
            guard state.reader != nil else { return nil }
            let index = state.nextBuffer
            state.nextBuffer = 1 - index
            guard try state.reader!.readNextBlock(into: &state.buffers[index]) else { return nil }
            return state.buffers[index]
        }
    }

    /// Records bytes sent with sendfile(2); see `FileRegionReader.bytesMovedOutOfBand(_:)`.
    func movedOutOfBand(_ count: Int64) throws(HTTPWireError) {
        try state.withLock { (state) throws(HTTPWireError) in try state.reader?.bytesMovedOutOfBand(count) }
    }

    /// fstat(2) the file and throw if its size changed.
    func checkUnchanged() throws(HTTPWireError) {
        try state.withLock { (state) throws(HTTPWireError) in try state.reader?.checkFileUnchanged() }
    }

    /// Closes the file (the reader's deinit closes its descriptor); later reads return nil.
    func close() {
        state.withLock { $0.reader = nil }
    }
}

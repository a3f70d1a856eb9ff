// RequestBodyWriter: puts a prepared request body on a connection, piece by piece (client layer).
//
// Bytes in memory are written in pieces of at most 256 KiB; file contents go out with sendfile(2) on plain
// HTTP (no copy through user space) in pieces sized by UploadPieceSizer, or in 256 KiB blocks read on the
// blocking worker over TLS (the next block is read while the current one is encrypted and written); a
// stream of unknown length is chunk-encoded (RFC 9112 §7.1). After every piece the owner is told, so it
// can report progress and stop sending when the server has already answered (RFC 9112 §9.5). Nothing is
// produced before the socket has taken the previous piece, so a body never sits in memory whole.
// It never reads from the connection.
//
// The one rule every path keeps: a Content-Length body is never completed with bytes we cannot vouch for.
// The last byte of each file region is read (never sendfile'd) and is handed out only after the file's
// size was checked again, so a file that grew or shrank during the upload fails with
// `HTTPWireError.localFileChanged` and the server sees a short body and a closed connection — never a
// complete-looking request built from two versions of a file.

import HTTPWireCodec
import Synchronization

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

    /// One file region: sendfile(2) on plain TCP for all but the last byte, blocks over TLS; the last byte
    /// always comes through ``FileRegionReader/readNextBlock(into:)``, which re-checks the file's size.
    private mutating func sendFile(_ region: FileRegion, onPieceSent: (Int64) -> Bool) async throws -> Bool {
        let file = try await BlockingWorker.shared.run {
            FileReaderBox(try FileRegionReader(region: region))
        }
        defer { file.close() }
        if connection.isPlainTCP && region.length > 1 {
            guard try await sendFileOutOfBand(file, region: region, onPieceSent: onPieceSent) else { return false }
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

    /// Moves all but the last byte of `region` with sendfile(2), in pieces the sizer chooses. Returns false
    /// when told to stop.
    private mutating func sendFileOutOfBand(
        _ file: FileReaderBox, region: FileRegion, onPieceSent: (Int64) -> Bool
    ) async throws -> Bool {
        let clock = ContinuousClock()
        var remaining = region.length - 1
        var offset = region.offset
        while remaining > 0 {
            let piece = min(remaining, pieceSizer.nextPieceBytes)
            let start = clock.now
            let sent = try await connection.socket.sendFile(
                file.descriptor, offset: offset, count: piece, deadline: deadline())
            pieceSizer.pieceSent(bytes: sent, in: clock.now - start)
            if sent == 0 {
                // sendfile(2) found the end of the file early: it shrank. Let the size check say so.
                try await BlockingWorker.shared.run { try file.checkUnchanged() }
                throw HTTPWireError.localReadFailed(path: region.path, errno: EIO)
            }
            // Bookkeeping only: the region's last byte is still to come, so no size check runs here.
            try file.movedOutOfBand(sent)
            offset += sent
            remaining -= sent
            sentBytes += sent
            guard report(onPieceSent) else { return false }
        }
        return true
    }
}

/// Chooses how many bytes the next sendfile(2) call may move.
///
/// Each call is one round trip through the reactor (a wake-up and a task resumption, tens of
/// microseconds), and the owner reports progress after each. Small pieces give smooth progress but cost
/// throughput at loopback speeds (256 KiB pieces at 2 GB/s are 8,000 round trips a second); large pieces
/// are cheap but, on a slow link, leave progress frozen for seconds (4 MiB at 1 MB/s). So the size adapts:
/// it doubles while a piece takes under half of ``targetDuration`` and halves when one takes longer,
/// between ``minimumBytes`` and ``maximumBytes``. A report therefore comes at least every 256 KiB or
/// about every 50 ms, whichever the link allows.
struct UploadPieceSizer {
    /// The smallest piece: the progress granularity on a slow link.
    static let minimumBytes: Int64 = 256 * 1024
    /// The largest piece: a quarter of a millisecond of reactor overhead per ~2–4 ms of sending at
    /// loopback speed.
    static let maximumBytes: Int64 = 8 * 1024 * 1024
    /// How long one piece should take.
    static let targetDuration: Duration = .milliseconds(50)

    /// The size of the next piece.
    private(set) var nextPieceBytes: Int64 = minimumBytes

    /// Adjusts the next size after a piece of `bytes` took `elapsed`. A short piece (the file's end) says
    /// nothing about the link and is ignored.
    mutating func pieceSent(bytes: Int64, in elapsed: Duration) {
        guard bytes >= nextPieceBytes else { return }
        if elapsed * 2 < Self.targetDuration {
            nextPieceBytes = min(Self.maximumBytes, nextPieceBytes * 2)
        } else if elapsed > Self.targetDuration {
            nextPieceBytes = max(Self.minimumBytes, nextPieceBytes / 2)
        }
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

    private let state: Mutex<State>
    /// The open file, for sendfile(2); valid until ``close()``.
    let descriptor: Int32

    init(_ reader: consuming FileRegionReader) {
        descriptor = reader.fileDescriptor
        state = Mutex(State(reader: Optional(consume reader)))
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

    /// Records bytes sent with sendfile(2); see ``FileRegionReader/bytesMovedOutOfBand(_:)``.
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

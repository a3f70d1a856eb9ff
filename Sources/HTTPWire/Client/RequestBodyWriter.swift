// RequestBodyWriter: puts a prepared request body on a connection, piece by piece (client layer).
//
// Bytes in memory are written in pieces of at most 256 KiB; file contents go out in 256 KiB blocks read on
// the blocking worker (the next block is read while the current one is written, or encrypted and written
// over TLS); a stream of unknown length is chunk-encoded (RFC 9112 §7.1). After every piece the owner is
// told, so it can report progress and stop sending when the server has already answered (RFC 9112 §9.5).
// Nothing is produced before the socket has taken the previous piece, so a body never sits in memory whole.
// It never reads from the connection.
//
// Why not sendfile(2) on plain HTTP: measured on loopback against nginx's dav sink (`make bench`), 256 KiB
// write(2)s beat sendfile in nearly every paired round (about 1.05× curl against 0.75×). sendfile hands
// the socket the file's page-cache pages as 4 KiB fragments, and the receiver then copies from many small
// fragments instead of a few large linear buffers; the copy sendfile saves costs less than that.
//
// The one rule every path keeps: a Content-Length body is never completed with bytes we cannot vouch for.
// The last block of each file region is handed out only after the file's size was checked again, so a file
// that grew or shrank during the upload fails with `HTTPWireError.localFileChanged` and the server sees a
// short body and a closed connection — never a complete-looking request built from two versions of a file.

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

    /// One file region, in blocks; the last one comes through ``FileRegionReader/readNextBlock(into:)``
    /// only after it re-checked the file's size.
    private mutating func sendFile(_ region: FileRegion, onPieceSent: (Int64) -> Bool) async throws -> Bool {
        let file = try await BlockingWorker.shared.run {
            FileReaderBox(try FileRegionReader(region: region))
        }
        defer { file.close() }
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

    init(_ reader: consuming FileRegionReader) {
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

    /// Closes the file (the reader's deinit closes its descriptor); later reads return nil.
    func close() {
        state.withLock { $0.reader = nil }
    }
}

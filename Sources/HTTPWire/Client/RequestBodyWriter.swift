// RequestBodyWriter: puts a prepared request body on a connection, piece by piece (client layer).
//
// Bytes in memory are written as they are; file contents go out with sendfile(2) on plain HTTP (no copy
// through user space) or in 256 KiB blocks read on the blocking worker over TLS; a stream of unknown length
// is chunk-encoded (RFC 9112 §7.1). After every piece the owner is told, so it can report progress and stop
// sending when the server has already answered (RFC 9112 §9.5). It never reads from the connection.

import HTTPWireCodec

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one request body; `onPieceSent` returns false to stop early.
struct RequestBodyWriter {
    let connection: PooledConnection
    let deadline: @Sendable () -> Deadline
    /// Bytes of the body sent so far.
    private(set) var sentBytes: Int64 = 0

    init(connection: PooledConnection, deadline: @escaping @Sendable () -> Deadline) {
        self.connection = connection
        self.deadline = deadline
    }

    /// Sends the whole body unless `onPieceSent` says stop. Returns true when the body was sent completely.
    mutating func send(_ body: PreparedBody, onPieceSent: (Int64) -> Bool) async throws -> Bool {
        switch body.source {
        case .none:
            return true
        case .bytes(let bytes):
            try await write(bytes[...])
            return onPieceSent(sentBytes)
        case .file(let region):
            return try await sendFile(region, onPieceSent: onPieceSent)
        case .multipart(let prepared):
            var reader = prepared.makeReader()
            while let segment = reader.next() {
                switch segment {
                case .bytes(let bytes):
                    try await write(bytes[...])
                    guard onPieceSent(sentBytes) else { return false }
                case .file(let region):
                    guard try await sendFile(region, onPieceSent: onPieceSent) else { return false }
                }
            }
            return true
        case .stream(let sequence):
            var chunk: [UInt8] = []
            for try await piece in sequence where !piece.isEmpty {
                chunk.removeAll(keepingCapacity: true)
                ChunkedEncoder.encodeChunk(piece, into: &chunk)
                try await connection.stream.write(chunk[...], deadline: deadline())
                sentBytes += Int64(piece.count)
                guard onPieceSent(sentBytes) else { return false }
            }
            chunk.removeAll(keepingCapacity: true)
            try ChunkedEncoder.encodeLastChunk(into: &chunk)
            try await connection.stream.write(chunk[...], deadline: deadline())
            return true
        }
    }

    private mutating func write(_ bytes: ArraySlice<UInt8>) async throws {
        try await connection.stream.write(bytes, deadline: deadline())
        sentBytes += Int64(bytes.count)
    }

    /// One file region: sendfile(2) on plain TCP for all but the last byte (whose read re-checks the file's
    /// size, so a file that changed never produces a complete-looking body), blocks over TLS.
    private mutating func sendFile(_ region: FileRegion, onPieceSent: (Int64) -> Bool) async throws -> Bool {
        let file = try await BlockingWorker.shared.run {
            FileReaderBox(try FileRegionReader(region: region))
        }
        defer { file.close() }
        if connection.isPlainTCP && region.length > 1 {
            var remaining = region.length - 1
            var offset = region.offset
            // Pieces of 4 MiB keep progress reports flowing without costing throughput.
            while remaining > 0 {
                let piece = min(remaining, 4 * 1024 * 1024)
                let sent = try await connection.socket.sendFile(
                    file.descriptor, offset: offset, count: piece, deadline: deadline())
                if sent == 0 {
                    // sendfile(2) found the end of the file early: it shrank. Let the size check say so.
                    try await BlockingWorker.shared.run { try file.checkUnchanged() }
                    throw HTTPWireError.localReadFailed(path: region.path, errno: EIO)
                }
                try await BlockingWorker.shared.run { try file.movedOutOfBand(sent) }
                offset += sent
                remaining -= sent
                sentBytes += sent
                guard onPieceSent(sentBytes) else { return false }
            }
        }
        while true {
            let block = try await BlockingWorker.shared.run { try file.readNextBlock() }
            guard let block else { return true }
            try await write(block[...])
            guard onPieceSent(sentBytes) else { return false }
        }
    }
}

/// A FileRegionReader in a reference the blocking worker's closures can share. Used by one writer at a time:
/// each call happens after the previous one returned, so no lock is needed (hence `@unchecked Sendable`).
final class FileReaderBox: @unchecked Sendable {
    private var reader: FileRegionReader?
    /// The block buffer, reused from block to block: the writer drops its reference before asking for the
    /// next one, so the storage stays uniquely referenced and is filled in place.
    private var buffer: [UInt8] = []

    init(_ reader: consuming FileRegionReader) { self.reader = Optional(consume reader) }

    var descriptor: Int32 { reader?.fileDescriptor ?? -1 }

    /// The next block, or nil at the end of the region.
    func readNextBlock() throws(HTTPWireError) -> [UInt8]? {
        guard reader != nil, try reader!.readNextBlock(into: &buffer) else { return nil }
        return buffer
    }

    func movedOutOfBand(_ count: Int64) throws(HTTPWireError) {
        try reader?.bytesMovedOutOfBand(count)
    }

    func checkUnchanged() throws(HTTPWireError) {
        try reader?.checkFileUnchanged()
    }

    /// Closes the file (the reader's deinit closes its descriptor).
    func close() { reader = nil }
}

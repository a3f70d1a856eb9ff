// PreparedBody: a RequestBody made ready to send: its framing decided and its length known (client layer).
//
// RFC 9112 §6.2–§6.3: a request body is framed by Content-Length when its length is known before the head is
// sent, and by chunked transfer coding otherwise. Files and multipart forms have a known length (stat at
// send time), so they go out with Content-Length; only a stream of unknown length is chunked. Preparing a
// body stats files on the blocking worker, never on the cooperative pool. Nothing here writes to a socket.

import HTTPWireCodec
import HTTPWireTransport

/// A body with its framing, ready for ``RequestBodyWriter``.
struct PreparedBody: Sendable {
    /// Where the bytes come from.
    enum Source: Sendable {
        case none
        case bytes([UInt8])
        case file(FileRegion)
        case multipart(PreparedMultipartBody)
        case stream(any AsyncSequence<[UInt8], any Error> & Sendable)
    }

    /// The bytes' origin.
    let source: Source
    /// How the head frames the body.
    let framing: RequestBodyFraming
    /// The exact length when known (everything but a stream).
    let totalBytes: Int64?
    /// A Content-Type the body implies (multipart's boundary), unless the caller set one.
    let impliedContentType: String?

    /// A body already in memory (none, bytes, a form) framed without suspending; nil for a file, a multipart
    /// form or a stream, which ``prepare(_:)`` must stat, lay out or wrap first. Most requests take this
    /// path, and skipping the await saves the request a task switch.
    static func inMemory(_ body: RequestBody) -> PreparedBody? {
        switch body {
        case .empty:
            return PreparedBody(source: .none, framing: .none, totalBytes: 0, impliedContentType: nil)
        case .bytes(let bytes):
            return PreparedBody(
                source: .bytes(bytes), framing: .contentLength(Int64(bytes.count)), totalBytes: Int64(bytes.count),
                impliedContentType: nil)
        case .form(let form):
            let bytes = form.encodedBytes
            return PreparedBody(
                source: .bytes(bytes), framing: .contentLength(Int64(bytes.count)), totalBytes: Int64(bytes.count),
                impliedContentType: URLEncodedForm.contentType)
        case .file, .multipart, .stream:
            return nil
        }
    }

    /// Stats files and lays out multipart forms (on the blocking worker).
    static func prepare(_ body: RequestBody) async throws -> PreparedBody {
        if let prepared = inMemory(body) { return prepared }
        switch body {
        case .empty, .bytes, .form:
            preconditionFailure("a body in memory is prepared by inMemory(_:)")
        case .file(let path):
            let region = try await BlockingWorker.shared.run {
                try FileRegion.wholeFile(at: path)
            }
            return PreparedBody(
                source: .file(region), framing: .contentLength(region.length), totalBytes: region.length,
                impliedContentType: nil)
        case .multipart(let form):
            let prepared = try await BlockingWorker.shared.run { try form.prepare() }
            return PreparedBody(
                source: .multipart(prepared), framing: .contentLength(prepared.contentLength),
                totalBytes: prepared.contentLength, impliedContentType: prepared.contentType)
        case .stream(let sequence):
            return PreparedBody(source: .stream(sequence), framing: .chunked, totalBytes: nil, impliedContentType: nil)
        }
    }

    /// The body bytes when they are small enough to go out in the same write as the head (one syscall, one
    /// TCP segment for a typical JSON request).
    var smallInlineBytes: [UInt8]? {
        if case .bytes(let bytes) = source, bytes.count <= 64 * 1024 { return bytes }
        return nil
    }

    /// How the exchange state machine sees this body.
    var replayability: ExchangeStateMachine.RequestBody {
        switch source {
        case .none: return .empty
        case .bytes, .file, .multipart: return .replayable
        case .stream: return .oneShot
        }
    }
}

// ResponseBody: a response body as an AsyncSequence of byte slices (client layer).
// A thin public face over the exchange that carries the response; reading happens only when the consumer
// asks for more. Dropping the body before its end ends the exchange and closes its connection. When a
// middleware put `ResponseBodyDecoder`s on the response (content decoding), the pieces pass through them
// here, between the exchange and the caller; without one, a piece is handed on untouched.

import HTTPWireCodec
import HTTPWireTransport

/// The body of an ``HTTPStreamingResponse``. Each element is a slice of the connection's receive buffer:
/// keep it only as long as you need it (holding it makes the next read allocate a fresh buffer).
///
/// The sequence ends when the body ends (Content-Length reached, the last chunk, or the server's close for
/// a body delimited by closing). A body cut short throws `HTTPWireError.bodyTruncated` (curl's exit 18).
/// Iterate it once.
public struct ResponseBody: AsyncSequence {
    /// A piece of the body: a slice of the connection's receive buffer.
    public typealias Element = ArraySlice<UInt8>

    let owner: Owner

    /// Keeps the exchange for the body's consumer; when the last copy of the body goes, an exchange still
    /// unfinished is abandoned (its connection closed: the rest of the body would otherwise be read as the
    /// next response). A class, because the exchange itself is also held by its writer task and timers.
    final class Owner {
        let exchange: Exchange
        /// The decoders the body passes through, in order; empty for the body as received.
        var decoders: [any ResponseBodyDecoder]
        /// The decoders' `finish` has run. Reader only.
        var isDecodingFinished = false

        init(_ exchange: Exchange, decoders: [any ResponseBodyDecoder]) {
            self.exchange = exchange
            self.decoders = decoders
        }

        /// The next non-empty decoded piece, or nil at the end (after the decoders' last output). A decoder
        /// that throws ends the exchange: the rest of the body cannot be made sense of.
        func nextDecodedPiece() async throws -> ArraySlice<UInt8>? {
            do {
                while true {
                    if let piece = try await exchange.nextBodyPiece() {
                        let output = try decode(piece, from: 0)
                        if !output.isEmpty { return output[...] }
                        continue
                    }
                    guard !isDecodingFinished else { return nil }
                    isDecodingFinished = true
                    // What one decoder gives when it finishes is the last input of the ones after it.
                    var output: [UInt8] = []
                    for index in decoders.indices {
                        let decoded = output.isEmpty ? [] : try decoders[index].decode(output[...])
                        output = try decoded + decoders[index].finish()
                    }
                    return output.isEmpty ? nil : output[...]
                }
            } catch {
                abandonIfUnfinished()
                throw error
            }
        }

        /// `piece` through the decoders from `first` on.
        private func decode(_ piece: ArraySlice<UInt8>, from first: Int) throws -> [UInt8] {
            var bytes = Array(piece)
            for index in first..<decoders.count {
                if bytes.isEmpty { break }
                bytes = try decoders[index].decode(bytes[...])
            }
            return bytes
        }

        /// Ends an exchange whose body is no longer wanted (its connection closed, never reused); nothing
        /// once the body has ended.
        func abandonIfUnfinished() {
            if !exchange.isResponseFinished { exchange.abandon() }
        }

        deinit {
            abandonIfUnfinished()
        }
    }

    init(exchange: Exchange, decoders: [any ResponseBodyDecoder] = []) {
        owner = Owner(exchange, decoders: decoders)
    }

    /// The iterator: each `next()` may read from the socket.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let owner: Owner

        /// The next piece of the body, reading from the socket only now; nil at the end of the body.
        /// `@concurrent`, like the rest of the public API: a caller on the main actor reads and decodes off it.
        @concurrent public mutating func next() async throws -> ArraySlice<UInt8>? {
            try await nextPiece()
        }

        /// `next()` for the library's own loops, on their executor: no executor switch per piece.
        mutating func nextPiece() async throws -> ArraySlice<UInt8>? {
            let piece =
                owner.decoders.isEmpty ? try await owner.exchange.nextBodyPiece() : try await owner.nextDecodedPiece()
            guard let piece else {
                // A writer still sending after an early answer ends before the body does.
                if owner.exchange.hasWriter { await owner.exchange.waitForWriter() }
                return nil
            }
            return piece
        }
    }

    /// The iterator over the body; make one and iterate it to the end (or drop it to close the connection).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(owner: owner)
    }

    /// Body bytes received so far.
    public var receivedBytes: Int64 { owner.exchange.receivedBytes }

    /// The announced length: Content-Length, 0 for no body, nil when unknown (or changed by a decoder).
    var expectedBytes: Int64? { owner.decoders.isEmpty ? owner.exchange.expectedBodyBytes : nil }

    /// Trailer fields, once the body has ended.
    var trailers: HTTPFields { owner.exchange.trailers }

    /// Moves the next part of a plain-HTTP, Content-Length body from the socket straight into `file` with
    /// splice(2), without passing through user space. Returns nil when that path does not apply (TLS,
    /// chunked, or bytes already buffered): read the sequence instead. Used by downloads.
    package func spliceNext(into file: DiskFile, offset: Int64, maxBytes: Int64) async throws -> Int64? {
        guard owner.decoders.isEmpty else { return nil }
        return try await owner.exchange.spliceBody(into: file, offset: offset, maxBytes: maxBytes)
    }

    /// Reads the next part of the body straight onto the end of `buffer` (over TLS: decrypted there), without
    /// passing through the connection's receive buffer, and adds the ranges of `buffer` that are body to
    /// `pieces`: the whole read for a Content-Length body, the chunk data between the framing for a chunked
    /// one (decoded in place, nothing copied). At most `maxBytes`, within `buffer`'s spare capacity. Returns
    /// the body bytes read, or nil when that path does not apply (a decoder, bytes already buffered, a body
    /// delimited by closing, the body's end): read the sequence instead. Used by downloads, whose write
    /// blocks are the buffer.
    /// Whether ``readNext(appendingTo:maxBytes:pieces:)`` would read now (rather than return nil).
    package var canReadNextInPlace: Bool { owner.decoders.isEmpty && owner.exchange.canReadBodyInPlace }

    package func readNext(
        appendingTo buffer: inout [UInt8], maxBytes: Int, pieces: inout [Range<Int>]
    ) async throws -> Int? {
        guard owner.decoders.isEmpty else { return nil }
        return try await owner.exchange.readBody(appendingTo: &buffer, maxBytes: maxBytes, pieces: &pieces)
    }

    /// Drops the next part of a plain-HTTP, Content-Length body without copying it (recv(2) with MSG_TRUNC).
    /// Returns nil when that path does not apply (TLS, chunked, or bytes already buffered): read the sequence
    /// instead. For a body the caller does not want (`-o /dev/null`), or to drain one so the connection can
    /// be reused.
    package func discardNext(maxBytes: Int64) async throws -> Int64? {
        guard owner.decoders.isEmpty else { return nil }
        return try await owner.exchange.discardBody(maxBytes: maxBytes)
    }
}

// ContentDecoder: the response-body decoder for `Content-Encoding: gzip` and `deflate` (RFC 9110 §8.4) —
// which responses it applies to, how it rewrites their head, and the limits on what it produces
// (compression, inside the client layer).
//
// The client puts one on a final response when ``ContentDecoding`` is on (HTTPClient.stream), ahead of any
// middleware decoder. Its output is what the body stream, `send`, `decode` and downloads see. Memory stays
// flat: each received piece is decoded through a 64 KiB buffer (Inflater) and handed on; nothing is
// accumulated across pieces, and the limits stop a bomb after a bounded amount of output. No I/O here.

import HTTPWireCodec

/// Undoes the content codings of one response body, the last one applied first, within the limits.
struct ContentDecoder: ResponseBodyDecoder {
    /// The `Content-Encoding` value, for errors.
    let codings: String
    /// The layers in decoding order: the last coding listed first (RFC 9110 §8.4: codings are listed in
    /// the order they were applied).
    private var layers: [InflateLayer]
    private let limits: ContentDecoding
    /// Bytes received (the encoded body).
    private var receivedBytes: Int64 = 0
    /// Bytes each layer has produced so far (every layer is held to the limits, so a gzip inside a gzip
    /// cannot grow an inner layer unchecked).
    private var producedBytes: [Int64]

    /// The decoder for a response with head `head` (whose body is not empty), or nil when the body is to be
    /// passed through untouched: decoding off, no `Content-Encoding`, only `identity`, a coding HTTPWire
    /// does not know, or a 206 (a range of an encoded representation cannot be decoded on its own). When
    /// it returns a decoder, `Content-Encoding` and `Content-Length` are removed from `head`: they describe
    /// the encoded bytes. Throws ``ContentDecodingFailure/tooManyCodings(_:)`` past ``ContentDecoding/maxCodings``.
    static func make(for head: inout ResponseHead, settings: ContentDecoding) throws(HTTPWireError) -> ContentDecoder? {
        guard settings.isEnabled, head.status.rawValue != 206, head.fields.contains("Content-Encoding") else {
            return nil
        }
        // RFC 9110 §8.4: a list, possibly over several field lines; names are case-insensitive; `identity`
        // (§12.5.3) means no coding. `x-gzip` is gzip (§8.4.1.3).
        var layers: [InflateLayer] = []
        for token in head.fields.tokens(for: "Content-Encoding") where token != "identity" {
            switch token {
            case "gzip", "x-gzip": layers.append(InflateLayer(.gzip))
            case "deflate": layers.append(InflateLayer(.deflate))
            default: return nil
            }
        }
        guard !layers.isEmpty else { return nil }
        let codings = head.fields.values(for: "Content-Encoding").joined(separator: ", ")
        guard layers.count <= ContentDecoding.maxCodings else {
            throw .badContentEncoding(coding: codings, .tooManyCodings(layers.count))
        }
        head.fields.remove(name: "Content-Encoding")
        head.fields.remove(name: "Content-Length")
        return ContentDecoder(codings: codings, layers: layers.reversed(), limits: settings)
    }

    private init(codings: String, layers: [InflateLayer], limits: ContentDecoding) {
        self.codings = codings
        self.layers = layers
        self.limits = limits
        self.producedBytes = Array(repeating: 0, count: layers.count)
    }

    /// The decoded bytes for the next received piece (often empty, or several times larger). Throws
    /// ``HTTPWireError/badContentEncoding(coding:_:)``.
    mutating func decode(_ piece: ArraySlice<UInt8>) throws -> [UInt8] {
        receivedBytes += Int64(piece.count)
        do throws(ContentDecodingFailure.Stop) {
            var bytes = Array(piece)
            for index in layers.indices {
                if bytes.isEmpty { break }
                bytes = try decode(bytes[...], layer: index)
            }
            return bytes
        } catch {
            throw HTTPWireError.badContentEncoding(coding: codings, error.failure)
        }
    }

    /// The body has ended: every layer must have ended too (nothing is left to output, since each piece is
    /// decoded as far as it goes). Throws ``ContentDecodingFailure/truncated``.
    mutating func finish() throws -> [UInt8] {
        do throws(ContentDecodingFailure.Stop) {
            for layer in layers { try layer.finish() }
        } catch {
            throw HTTPWireError.badContentEncoding(coding: codings, error.failure)
        }
        return []
    }

    /// `input` through layer `index`, checking the limits after every 64 KiB of output.
    private mutating func decode(_ input: ArraySlice<UInt8>, layer index: Int) throws(ContentDecodingFailure.Stop)
        -> [UInt8]
    {
        var output: [UInt8] = []
        var produced = producedBytes[index]
        let received = receivedBytes
        let limits = self.limits
        defer { producedBytes[index] = produced }
        try layers[index].decode(input) { (piece: ArraySlice<UInt8>) throws(ContentDecodingFailure.Stop) in
            produced += Int64(piece.count)
            try limits.check(produced: produced, received: received)
            output.append(contentsOf: piece)
        }
        return output
    }
}

// ResponseBodyDecoder: a transformation of a response body on its way from the exchange to the caller —
// the extension point for content codings such as gzip (RFC 9110 §8.4) (client layer).
//
// A middleware returns one from `HTTPMiddleware.bodyDecoder(for:to:)` for a final response; the body the
// caller iterates (and `send` collects) is then the decoder's output. The decoder owns its state for one
// response and is used by one task at a time. With a decoder in place, the zero-copy paths of downloads
// (splice, discard) stand aside and the announced length is unknown: the bytes the caller sees are not the
// ones on the wire. This file only declares the shape.

/// Turns the pieces of one response body into other bytes, in order.
///
/// ```swift
/// struct Uppercasing: ResponseBodyDecoder {
///     mutating func decode(_ piece: ArraySlice<UInt8>) throws -> [UInt8] {
///         piece.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
///     }
/// }
/// ```
public protocol ResponseBodyDecoder {
    /// The output for the next piece of the received body; may be empty (more input needed). Throwing
    /// ends the body with that error and closes the connection.
    mutating func decode(_ piece: ArraySlice<UInt8>) throws -> [UInt8]

    /// The last output, once the received body has ended (a decompressor's final block).
    mutating func finish() throws -> [UInt8]
}

extension ResponseBodyDecoder {
    /// Nothing is left over.
    public mutating func finish() throws -> [UInt8] { [] }
}

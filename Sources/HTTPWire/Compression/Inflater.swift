// Inflater: one zlib inflate stream with a fixed-size output buffer — the only file that touches zlib's
// z_stream (compression, inside the client layer).
//
// zlib keeps a pointer back to its z_stream and refuses a stream that moved, so the z_stream lives at one
// heap address for the inflater's life and is freed (inflateEnd) with it. Output goes through one 64 KiB
// buffer handed to the caller piece by piece: decoding a body of any size never needs more than that here
// (the caller decides what to keep). This file knows the three wire formats by their window bits and
// zlib's status codes; it knows nothing of HTTP, Content-Encoding, limits or member boundaries.

import CZlib

/// A zlib inflate stream for one format, fed input and draining into a fixed output buffer.
final class Inflater {
    /// The three framings of DEFLATE data (RFC 1951) that HTTP meets.
    enum Format {
        /// RFC 1952 gzip: a header, the deflate data, then CRC-32 and length (HTTP's `gzip`, RFC 9110 §8.4.1.3).
        case gzip
        /// RFC 1950 zlib: a two-byte header, the deflate data, then Adler-32 (HTTP's `deflate`, §8.4.1.2).
        case zlib
        /// Bare RFC 1951 deflate data with no header or checksum: what some servers send as `deflate`.
        case raw

        /// inflateInit2's window bits: 15 (a 32 KiB window, the largest) and the format in the sign or +16.
        var windowBits: Int32 {
            switch self {
            case .gzip: return 15 + 16
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    /// What one call to ``inflate(_:deliver:)`` found.
    struct Progress {
        /// Input bytes consumed; fewer than given only when the stream ended inside the input.
        var consumedBytes: Int
        /// The stream reached its end (gzip trailer or zlib checksum checked, final block done).
        var isStreamEnd: Bool
    }

    /// The size of the one output buffer: zlib fills it and the caller takes it before the next round.
    static let outputBytes = 64 * 1024

    /// The stream, at a fixed address zlib checks on every call. Owned by this inflater.
    private let stream: UnsafeMutablePointer<z_stream>
    /// The output buffer, reused for every round.
    private var output: [UInt8]

    /// A stream ready for the first byte of `format`.
    init(format: Format) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = [UInt8](repeating: 0, count: Self.outputBytes)
        // The only failures are Z_MEM_ERROR and Z_VERSION_ERROR (header and library disagree): neither is
        // the peer's doing, and neither can be worked around here.
        let status = httpwire_inflateInit2(stream, format.windowBits)
        precondition(status == Z_OK, "inflateInit2 failed with \(status)")
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a new stream of the same format on the same memory: the next gzip member (RFC 1952 §2.2
    /// allows several in one file).
    func reset() {
        let status = inflateReset(stream)
        precondition(status == Z_OK, "inflateReset failed with \(status)")
    }

    /// Decodes `input` until it is used up or the stream ends, handing each filled part of the output
    /// buffer to `deliver` (which must copy what it keeps: the buffer is reused). Throws
    /// ``ContentDecodingFailure/corrupt(_:)`` with zlib's own words for invalid data or a wrong checksum.
    func inflate(
        _ input: ArraySlice<UInt8>, deliver: (ArraySlice<UInt8>) throws(ContentDecodingFailure.Stop) -> Void
    ) throws(ContentDecodingFailure.Stop) -> Progress {
        var consumed = 0
        while true {
            let (status, used, produced) = round(input.dropFirst(consumed))
            consumed += used
            if produced > 0 { try deliver(output[..<produced]) }
            switch status {
            case Z_STREAM_END:
                return Progress(consumedBytes: consumed, isStreamEnd: true)
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR is "no progress possible": the input is used up and the output drained. A full
                // output buffer (produced == outputBytes) means zlib has more to give from this input.
                if consumed == input.count && produced < Self.outputBytes {
                    return Progress(consumedBytes: consumed, isStreamEnd: false)
                }
            case Z_NEED_DICT:
                // RFC 1950 §2.2 FDICT: a preset dictionary HTTP has no way to name.
                throw ContentDecodingFailure.Stop(.corrupt("the stream needs a preset dictionary"))
            case Z_DATA_ERROR:
                throw ContentDecodingFailure.Stop(.corrupt(message ?? "invalid deflate data"))
            case Z_MEM_ERROR:
                throw ContentDecodingFailure.Stop(.corrupt("zlib ran out of memory"))
            default:
                preconditionFailure("inflate returned \(status)")
            }
        }
    }

    /// One call to zlib's inflate with `input` and the whole output buffer: (status, input used, output made).
    private func round(_ input: ArraySlice<UInt8>) -> (Int32, Int, Int) {
        let stream = self.stream
        return input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                // zlib.h declares next_in without const (ZLIB_CONST is not set) but never writes through it.
                stream.pointee.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                stream.pointee.avail_in = UInt32(source.count)
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = UInt32(target.count)
                let status = CZlib.inflate(stream, Z_NO_FLUSH)
                let used = source.count - Int(stream.pointee.avail_in)
                let produced = target.count - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
                return (status, used, produced)
            }
        }
    }

    /// zlib's description of the last error ("incorrect data check", "invalid block type"), if it gave one.
    private var message: String? {
        stream.pointee.msg.map { String(cString: $0) }
    }
}

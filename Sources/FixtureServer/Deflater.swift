// Deflater: the fixture server's zlib compressor — gzip, zlib and raw deflate bodies for the compressed
// routes (edge layer, fixture server).
//
// The client only ever decodes; this is the one place that encodes, so tests can serve any text in any
// coding without files on disk, and a decompression bomb can be built from one compressed megabyte
// repeated. It owns its z_stream at a fixed address (zlib checks that it never moves). No I/O here.

import CZlib

/// A zlib deflate stream, fed whole buffers.
final class Deflater {
    /// The framings of deflate data, by inflateInit2/deflateInit2's window bits.
    enum Format: String {
        /// RFC 1952.
        case gzip
        /// RFC 1950 (HTTP's `deflate` as the RFC defines it).
        case zlib
        /// RFC 1951 with no header or trailer (what some servers send as `deflate`).
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: return 15 + 16
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    private let stream: UnsafeMutablePointer<z_stream>

    /// A stream for `format` at compression `level` (1 fastest … 9 smallest).
    init(format: Format, level: Int32 = 6) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = httpwire_deflateInit2(stream, level, format.windowBits)
        precondition(status == Z_OK, "deflateInit2 failed with \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a new stream of the same format and level on the same memory, as if just initialised: what
    /// a caller compressing many bodies uses instead of a new deflater for each (deflateInit2 allocates and
    /// sets up about 268 KB; deflateReset clears only the hash table).
    func reset() {
        let status = deflateReset(stream)
        precondition(status == Z_OK, "deflateReset failed with \(status)")
    }

    /// Compresses `input` and returns what zlib emits for it. `flush` is Z_NO_FLUSH, Z_FULL_FLUSH (ends on
    /// a byte boundary with no reference to earlier data, so the output can be repeated) or Z_FINISH.
    func deflate(_ input: [UInt8], flush: Int32) -> [UInt8] {
        var result: [UInt8] = []
        // deflateBound is the most one Z_FINISH call can emit for `input` after a fresh start, so a small
        // body gets a small buffer; 64 KiB at most, the loop below takes any more in rounds.
        let bound = Int(deflateBound(stream, UInt(input.count)))
        var buffer = [UInt8](repeating: 0, count: min(64 * 1024, bound))
        let stream = self.stream
        input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.pointee.avail_in = UInt32(source.count)
            while true {
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = UInt32(target.count)
                    let status = CZlib.deflate(stream, flush)
                    return (status, target.count - Int(stream.pointee.avail_out))
                }
                result.append(contentsOf: buffer[..<produced])
                precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate: \(status)")
                // Done when zlib left room in the buffer: it had nothing more to say for this input and flush.
                if status == Z_STREAM_END || (stream.pointee.avail_out > 0 && stream.pointee.avail_in == 0) { break }
            }
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        return result
    }

    /// `bytes` compressed whole in `format`.
    static func compress(_ bytes: [UInt8], format: Format, level: Int32 = 6) -> [UInt8] {
        Deflater(format: format, level: level).deflate(bytes, flush: Z_FINISH)
    }

    /// `bytes` compressed whole as one new stream of this deflater's format: ``reset()``, then Z_FINISH.
    func compress(_ bytes: [UInt8]) -> [UInt8] {
        reset()
        return deflate(bytes, flush: Z_FINISH)
    }
}

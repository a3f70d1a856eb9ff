// CodecError+SplitFree: a decoder error with the parts that may depend on how the input was split removed.
// Test tooling for Tests/Fuzz, compiled into every target by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// The decoder targets compare the error of one input fed whole, byte by byte and in random pieces. The error
// case must be the same; a preview of the bytes buffered when the error was found, or the size seen when a
// limit tripped, legitimately depends on what had arrived, so those are blanked before comparing.

import HTTPWireCodec

extension CodecError {
    /// The error without previews and sizes seen.
    var splitFree: CodecError {
        switch self {
        case .invalidStatusLine: return .invalidStatusLine(preview: "")
        case .invalidRequestLine: return .invalidRequestLine(preview: "")
        case .unsupportedVersion: return .unsupportedVersion(preview: "")
        case .invalidFieldLine: return .invalidFieldLine(preview: "")
        case .invalidChunkSize: return .invalidChunkSize(preview: "")
        case .chunkSizeOverflow: return .chunkSizeOverflow(preview: "")
        case .missingChunkTerminator: return .missingChunkTerminator(preview: "")
        case .headTooLarge(let limit, _): return .headTooLarge(limit: limit, seen: 0)
        case .chunkLineTooLong(let limit, _): return .chunkLineTooLong(limit: limit, seen: 0)
        case .trailersTooLarge(let limit, _): return .trailersTooLarge(limit: limit, seen: 0)
        default: return self
        }
    }
}

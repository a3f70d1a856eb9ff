// InflateLayer: one content coding of a body (`gzip` or `deflate`) undone as its bytes arrive, in any
// split — where a gzip member ends and the next begins, which format a `deflate` body is in, and whether the
// body stopped before its coding's end (compression, inside the client layer).
//
// A small state machine over an Inflater: it does no I/O and keeps no output (each decoded piece goes to
// the caller's closure). It knows nothing of limits or fields: ContentDecoder owns those.

/// One coding of a body, undone piece by piece.
struct InflateLayer {
    /// The codings HTTPWire decodes (RFC 9110 §8.4.1).
    enum Coding: String {
        /// RFC 1952, one or more members.
        case gzip
        /// RFC 1950 by the RFC (§8.4.1.2); raw RFC 1951 accepted too.
        case deflate
    }

    private enum State {
        /// No byte of a stream (or of the next gzip member) yet; `held` is the first byte of a deflate body,
        /// kept until the second says which format it is; `spare` is the inflater of the member before.
        /// Next: `.inside` (a byte arrived), or the end of the body (a clean end when `held` is empty).
        case waiting(held: [UInt8], spare: Inflater?)
        /// Inside a stream: its end is still to come. Next: `.waiting` (a gzip member ended), `.finished`
        /// (a deflate stream ended).
        case inside(Inflater)
        /// The deflate stream ended; any further byte is an error. Next: none.
        case finished
    }

    let coding: Coding
    private var state = State.waiting(held: [], spare: nil)

    /// A layer for `coding`, before its first byte.
    init(_ coding: Coding) {
        self.coding = coding
    }

    /// Decodes `input`, handing every decoded piece to `deliver` (copy what you keep).
    mutating func decode(
        _ input: ArraySlice<UInt8>, deliver: (ArraySlice<UInt8>) throws(ContentDecodingFailure.Stop) -> Void
    ) throws(ContentDecodingFailure.Stop) {
        var rest = input
        while !rest.isEmpty {
            switch state {
            case .waiting(let held, let spare):
                switch coding {
                case .gzip:
                    // After a member's trailer, the next byte starts another member (RFC 1952 §2.2); zlib checks
                    // its magic number, so trailing garbage is reported as corrupt, not dropped.
                    let inflater = spare ?? Inflater(format: .gzip)
                    if spare != nil { inflater.reset() }
                    state = .inside(inflater)
                case .deflate:
                    let start = held + rest
                    guard start.count >= 2 else {
                        state = .waiting(held: Array(start), spare: nil)
                        return
                    }
                    let format: Inflater.Format = Self.hasZlibHeader(start[0], start[1]) ? .zlib : .raw
                    state = .inside(Inflater(format: format))
                    rest = start[...]
                }
            case .inside(let inflater):
                let progress = try inflater.inflate(rest, deliver: deliver)
                rest = rest.dropFirst(progress.consumedBytes)
                if progress.isStreamEnd {
                    state = coding == .gzip ? .waiting(held: [], spare: inflater) : .finished
                }
            case .finished:
                // RFC 9110 §8.4.1.2: the content is one zlib stream; bytes after it are not part of it.
                throw ContentDecodingFailure.Stop(.corrupt("data after the end of the deflate stream"))
            }
        }
    }

    /// The body has ended: throws ``ContentDecodingFailure/truncated`` unless the coding ended too. An
    /// empty body is a clean end (nothing was encoded).
    func finish() throws(ContentDecodingFailure.Stop) {
        switch state {
        case .waiting(let held, _):
            if !held.isEmpty { throw ContentDecodingFailure.Stop(.truncated) }
        case .inside:
            throw ContentDecodingFailure.Stop(.truncated)
        case .finished:
            return
        }
    }

    /// RFC 1950 §2.2: CM = 8 (deflate) with a window of at most 32 KiB (CINFO ≤ 7), and CMF·256 + FLG a
    /// multiple of 31. A raw deflate stream rarely starts like that (its first byte is a block header);
    /// this is the test curl and browsers make to accept both.
    static func hasZlibHeader(_ first: UInt8, _ second: UInt8) -> Bool {
        first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }
}

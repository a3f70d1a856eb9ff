// Pieces: an input cut into the feeds a socket might have delivered, produced one at a time.
// Test tooling for Tests/Fuzz, compiled into every target by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// The decoders must give the same events for every split of their input, so the decoder targets run each
// input whole, one byte at a time and in seeded random pieces. The pieces are slices of the one input array,
// made as the decoder asks for them: building an array of 4,096 one-byte slices per run (as the first fuzz
// target did) cost more than decoding them.

/// How an input is cut into feeds.
enum Split: Sendable, CustomStringConvertible {
    /// One feed with every byte.
    case whole
    /// One feed per byte: every state of a decoder is entered with an empty buffer at least once.
    case byteByByte
    /// Feeds of 1 to `maxPiece` bytes, lengths drawn from an xorshift generator seeded with `seed`.
    case random(seed: UInt64, maxPiece: Int)

    var description: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte by byte"
        case .random(let seed, let maxPiece): return "random pieces (seed \(seed), up to \(maxPiece) bytes)"
        }
    }
}

/// The feeds of one input under one ``Split``, as slices of the input: a sequence that allocates nothing.
struct Pieces: Sequence, IteratorProtocol {
    private let input: ArraySlice<UInt8>
    private let split: Split
    private var position: Int
    private var state: UInt64

    /// The feeds of `input` cut as `split` says.
    init(_ input: ArraySlice<UInt8>, _ split: Split) {
        self.input = input
        self.split = split
        position = input.startIndex
        if case .random(let seed, _) = split { state = seed | 1 } else { state = 0 }
    }

    /// The next feed, or nil when the input is used up. Never an empty slice (that would mean "closed").
    mutating func next() -> ArraySlice<UInt8>? {
        guard position < input.endIndex else { return nil }
        let length: Int
        switch split {
        case .whole:
            length = input.endIndex - position
        case .byteByByte:
            length = 1
        case .random(_, let maxPiece):
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            length = 1 + Int(state % UInt64(Swift.max(1, maxPiece)))
        }
        let end = Swift.min(input.endIndex, position + length)
        defer { position = end }
        return input[position..<end]
    }

    /// The bytes not handed out yet, in one slice; the sequence is used up afterwards.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { position = input.endIndex }
        return input[position...]
    }
}

// ChaosPlan: what the chaos relay does to one exchange's bytes, derived from one seed (test support, used by
// the chaos suites of HTTPWireTests).
//
// A seed fixes everything the relay decides: how the bytes of each direction are cut into pieces (1 byte to
// 64 KiB), where it pauses between pieces, and the one fault it injects on the exchange's first connection
// (truncate, reset, half-close, stall, or — for TLS, whose records are authenticated — a flipped byte) and
// at which byte. Later connections of the same exchange (a retry, the resume of a download) are cut and
// delayed but never broken, so an exchange that fails once can be finished. Replaying a seed replays the
// plan; thread timing stays the machine's, so a failure that needs one interleaving may need a few replays.
// This file only computes: it opens nothing and starts nothing.

/// A direction of the relayed bytes.
public enum ChaosDirection: String, Sendable {
    /// From the client to the server (the request).
    case toServer
    /// From the server to the client (the response).
    case toClient
}

/// The fault the relay injects once, when a direction has forwarded `afterBytes` bytes.
public enum ChaosFault: Sendable, Equatable, CustomStringConvertible {
    /// Nothing breaks: only cuts and pauses.
    case none
    /// The relay drops the server connection and sends the client a FIN (a clean end of stream).
    case truncate(ChaosDirection, afterBytes: Int)
    /// The relay drops the server connection and resets the client's (SO_LINGER 0: an RST).
    case reset(ChaosDirection, afterBytes: Int)
    /// The relay shuts down the writing side towards the direction's receiver and drops what follows in
    /// that direction; the other direction keeps flowing.
    case halfClose(ChaosDirection, afterBytes: Int)
    /// The direction stops moving (the relay stops reading, so TCP backpressure reaches the sender) until
    /// the client gives up and closes.
    case stall(ChaosDirection, afterBytes: Int)
    /// The byte at that offset is flipped (XOR 0x5A). Only for TLS, which must detect it.
    case corrupt(ChaosDirection, atByte: Int)

    public var description: String {
        switch self {
        case .none: "none"
        case .truncate(let direction, let offset): "truncate \(direction) after \(offset)"
        case .reset(let direction, let offset): "reset \(direction) after \(offset)"
        case .halfClose(let direction, let offset): "half-close \(direction) after \(offset)"
        case .stall(let direction, let offset): "stall \(direction) after \(offset)"
        case .corrupt(let direction, let offset): "corrupt \(direction) at \(offset)"
        }
    }

    /// The direction and byte offset the fault applies to, nil for ``none``.
    public var trigger: (direction: ChaosDirection, offset: Int)? {
        switch self {
        case .none: nil
        case .truncate(let direction, let offset), .reset(let direction, let offset),
            .halfClose(let direction, let offset), .stall(let direction, let offset),
            .corrupt(let direction, let offset):
            (direction, offset)
        }
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator whose every output is a pure function of
/// the seed, so a printed seed is a complete replay recipe.
public struct ChaosGenerator: Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `range` (slightly biased for huge ranges, which is fine for a test).
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// True once in `n` calls on average.
    public mutating func oneIn(_ n: Int) -> Bool { next() % UInt64(n) == 0 }
}

/// How one connection of an exchange is relayed: its piece sizes, pauses and (first connection only) fault.
public struct ChaosConnectionPlan: Sendable {
    /// The fault, ``ChaosFault/none`` on every connection but the first.
    public let fault: ChaosFault
    /// Bytes of each direction that go out in pieces of at most ``smallPieceLimit``: the heads, where a
    /// split in every place matters most. Later bytes go in pieces of at most ``pieceLimit``.
    let smallPiecePrefix: Int
    let smallPieceLimit: Int
    let pieceLimit: Int
    /// A pause of 1–`maxPauseMilliseconds` ms follows a piece once in `pauseOneIn`, at most `maxPauses` times.
    let pauseOneIn: Int
    let maxPauseMilliseconds: Int
    let maxPauses: Int
    /// The generator of the piece sizes and pauses, private to this connection.
    var generator: ChaosGenerator

    /// The size of the next piece of a direction that has forwarded `forwarded` bytes.
    mutating func nextPieceSize(forwarded: Int) -> Int {
        let limit = forwarded < smallPiecePrefix ? smallPieceLimit : pieceLimit
        return generator.next(in: 1...limit)
    }

    /// The pause after a piece, in milliseconds (0: none); counts against `maxPauses` via `pausesTaken`.
    mutating func nextPause(pausesTaken: Int) -> Int {
        guard pausesTaken < maxPauses, generator.oneIn(pauseOneIn) else { return 0 }
        return generator.next(in: 1...maxPauseMilliseconds)
    }
}

/// Everything the relay decides for one exchange, from its seed.
///
/// ```swift
/// let plan = ChaosPlan(seed: 42, allowsCorruption: true, requestBytes: 300, responseBytes: 70_000)
/// print(plan.fault)   // "reset toClient after 1234", the same for every run of seed 42
/// ```
public struct ChaosPlan: Sendable, CustomStringConvertible {
    /// The seed everything here follows from.
    public let seed: UInt64
    /// The fault of the first connection.
    public let fault: ChaosFault

    /// Chooses a fault for an exchange of about `requestBytes` up and `responseBytes` down. About one
    /// exchange in three has no fault; the others spread over the faults, with `corrupt` only when `allowsCorruption`
    /// (TLS: plain HTTP has no way to notice a changed byte, and no client can be asked to).
    public init(seed: UInt64, allowsCorruption: Bool, requestBytes: Int, responseBytes: Int) {
        self.seed = seed
        var generator = ChaosGenerator(seed: seed ^ 0xC4A0_5EED)
        let direction: ChaosDirection = generator.oneIn(3) ? .toServer : .toClient
        let length = max(1, direction == .toServer ? requestBytes : responseBytes)
        // Offsets cluster near the start (the heads) half of the time, anywhere in the message otherwise.
        let offset = generator.oneIn(2) ? generator.next(in: 0...min(length, 512)) : generator.next(in: 0...length)
        let kinds = allowsCorruption ? 6 : 5
        switch generator.next(in: 0...kinds) {
        case 0, 1: fault = .none
        case 2: fault = .truncate(direction, afterBytes: offset)
        case 3: fault = .reset(direction, afterBytes: offset)
        case 4: fault = .halfClose(direction, afterBytes: offset)
        case 5: fault = .stall(direction, afterBytes: offset)
        default: fault = .corrupt(direction, atByte: offset)
        }
    }

    /// The plan of the exchange's connection number `index` (0 first).
    public func connection(_ index: Int) -> ChaosConnectionPlan {
        var generator = ChaosGenerator(seed: seed &+ 0x1000 &* UInt64(index + 1))
        let small = [1, 1, 3, 7, 64, 1500][generator.next(in: 0...5)]
        let large = [1500, 16 * 1024, 64 * 1024][generator.next(in: 0...2)]
        return ChaosConnectionPlan(
            fault: index == 0 ? fault : .none, smallPiecePrefix: generator.next(in: 0...4096), smallPieceLimit: small,
            pieceLimit: large, pauseOneIn: generator.next(in: 4...64), maxPauseMilliseconds: generator.next(in: 1...20),
            maxPauses: generator.next(in: 0...8), generator: generator)
    }

    public var description: String { "seed \(seed): \(fault)" }
}

// SplitMix64: a tiny deterministic random number generator for reproducible test splits.
// Test support: pure arithmetic, no clock, no system entropy.
//
// Random splits only help if a failure can be replayed, so every split comes from a fixed seed. SplitMix64
// (Steele, Lea and Flood, 2014) is a few lines, passes BigCrush, and gives the same sequence on every machine.

/// A seeded generator: the same seed always yields the same numbers.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

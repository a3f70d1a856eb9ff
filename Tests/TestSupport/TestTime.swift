// TestTime: the one time scale of the test suites (test support, shared by HTTPWireTests and WireCLITests).
//
// Every bound a test puts on time is a guess about how fast the machine runs: a `.timeLimit`, the deadline
// of an `eventually`, a client or socket timeout that must not fire, a wall-clock upper bound ("stop returns
// within 15 s"). The guesses are made for a loaded 2-core machine and multiplied by one factor, read once
// from the environment variable HTTPWIRE_TEST_TIME_SCALE (default 1), which slow runs raise:
//
//     HTTPWIRE_TEST_TIME_SCALE=4 swift test --sanitize=address
//
// Scaled: `.timeLimit(.scaledMinutes(1))`, `.seconds(10).scaled`, and `eventually`, which scales its own
// deadline. Not scaled: lower bounds that check a timer did not fire early (`elapsed >= 280 ms` for a 300 ms
// timeout: load only makes them truer), timeouts that a test wants to fire (they only have to be shorter
// than the stall they meet, which the test makes long), and durations that are the subject of a test (a
// route's pacing). This file only does arithmetic; it starts nothing and waits for nothing.

import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The factor every time bound of the tests is multiplied by.
///
/// ```swift
/// @Test("a body that stalls is timedOut(.body)", .timeLimit(.scaledMinutes(1)))
/// ...
/// let client = ClientFixture.client(for: server) { $0.timeouts.idle = .seconds(3).scaled }
/// await #expect(throws: HTTPWireError.self) { try await client.get(server.url("/stall")) }
/// ```
public enum TestTime {
    /// The name of the environment variable that sets ``scale``.
    public static let environmentVariable = "HTTPWIRE_TEST_TIME_SCALE"

    /// HTTPWIRE_TEST_TIME_SCALE as a positive number, 1 when unset. A value that is not a positive number
    /// stops the run at once: a typo must not quietly run the suite unscaled.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment[environmentVariable], !text.isEmpty else { return 1 }
        guard let value = Double(text), value.isFinite, value > 0 else {
            preconditionFailure("\(environmentVariable) must be a positive number, not \"\(text)\"")
        }
        return value
    }()

    /// `duration` multiplied by ``scale``.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * scale
    }

    /// `minutes` multiplied by ``scale``, rounded up to whole minutes (the unit of Swift Testing's limits).
    public static func scaledMinutes(_ minutes: Int) -> Int {
        Int((Double(minutes) * scale).rounded(.up))
    }
}

extension Duration {
    /// This duration multiplied by ``TestTime/scale``: `.seconds(10).scaled`.
    public var scaled: Duration { TestTime.scaled(self) }
}

extension TimeLimitTrait.Duration {
    /// A time limit of `minutes` multiplied by ``TestTime/scale`` (rounded up): `.timeLimit(.scaledMinutes(1))`.
    public static func scaledMinutes(_ minutes: Int) -> Self {
        .minutes(TestTime.scaledMinutes(minutes))
    }
}

// FuzzCheck: how a fuzz target reports a broken invariant.
// Test tooling for Tests/Fuzz, compiled into every target by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// libFuzzer saves an input as a crash when the process dies on it. A target that finds a property broken
// (two splits of one input disagree, a parsed value does not survive a round trip) prints what it saw and
// aborts, so the input lands in the target's artifacts folder like any sanitizer report. Nothing here may
// allocate on the success path: these checks run millions of times.

import Glibc

/// Failing a fuzz run on purpose, with a message that says which property broke.
enum FuzzCheck {
    /// Prints `message` on stderr and aborts: libFuzzer keeps the input as `crash-<sha1>`.
    static func fail(_ message: String) -> Never {
        var line = Array("fuzz check failed: \(message)\n".utf8)
        _ = line.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        abort()
    }

    /// Fails with `message` unless `condition` holds. The message is built only on failure.
    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }
}

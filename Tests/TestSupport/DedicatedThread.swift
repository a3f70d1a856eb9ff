// DedicatedThread: runs one blocking call on a thread of its own and hands the result back to the awaiting
// task (test support, shared by HTTPWireTests and WireCLITests).
//
// Swift's cooperative pool has about one thread per core, two on the project's machines, and every test of
// the run shares it with the in-process servers the tests talk to. A test that waits for a child process,
// reads a large file or sleeps in a system call on one of those threads takes half of the machine's pool
// away from everyone for as long as it waits; two such waits stop every other test (seen: a minute of
// `DocSamplesTests` compiling while dozens of tests hit their time limits at the same moment). So every
// blocking call of the tests runs here instead: a fresh `Thread` per call, which ends with the call. Not
// for long-lived loops (servers use FixtureServer's executor), and nothing here may touch the pool's threads.

import Foundation

/// Runs a blocking closure off the cooperative pool.
///
/// ```swift
/// let bytes = try await DedicatedThread.run { try Data(contentsOf: url) }   // a 64 MiB read, off the pool
/// ```
public enum DedicatedThread {
    /// The name every such thread carries (`/proc/self/task/*/comm`), so that a test counting the process's
    /// threads can leave out the ones other tests' waits come and go with.
    public static let threadName = "test-blocking"

    /// Runs `work` on a new thread and returns (or throws) what it returned. The calling task is suspended,
    /// not blocked, meanwhile. Cancellation is not forwarded: `work` runs to its end.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                Thread.current.name = threadName
                continuation.resume(with: Result { try work() })
            }
        }
    }

    /// ``run(_:)`` for work that cannot fail.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                Thread.current.name = threadName
                continuation.resume(returning: work())
            }
        }
    }
}

// BlockingWorkerTests: what a cancelled caller gets from the blocking worker — `run` lets go at once while
// the work finishes on its thread; `runToCompletion` waits for the work and returns its result, as a file
// write whose byte count the caller keeps needs.

import HTTPWireTransport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct BlockingWorkerTests {
    /// A job that says when it started and blocks its worker thread until the test opens the gate.
    struct GatedWork: Sendable {
        let started = LockedState(false)
        let gate = LockedState(false)
        let finished = LockedState(false)

        func body() -> Int {
            started.withLock { $0 = true }
            while !gate.withLock({ $0 }) { usleep(1000) }
            finished.withLock { $0 = true }
            return 7
        }
    }

    @Test("run: a cancelled caller is let go at once, and the work still runs to its end")
    func runLetsGo() async throws {
        let work = GatedWork()
        let task = Task { try await BlockingWorker.shared.run { work.body() } }
        #expect(await eventually { work.started.withLock { $0 } })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!work.finished.withLock { $0 })
        work.gate.withLock { $0 = true }
        #expect(await eventually { work.finished.withLock { $0 } })
    }

    @Test("runToCompletion: a cancelled caller waits for the work and gets its result")
    func runToCompletionWaits() async throws {
        let work = GatedWork()
        let task = Task { try await BlockingWorker.shared.runToCompletion { work.body() } }
        #expect(await eventually { work.started.withLock { $0 } })
        task.cancel()
        work.gate.withLock { $0 = true }
        #expect(try await task.value == 7)
        #expect(work.finished.withLock { $0 })
    }
}

// MainThread: how the process's first thread waits for the command (edge layer).
// main.swift is synchronous on purpose. Top-level code that awaits makes the whole file an async main, whose
// executor parks the first thread with dispatch_main(), and dispatch_main() ends that thread with
// pthread_exit(): a forced unwind that walks the binary's unwind tables (.eh_frame_hdr and .eh_frame, ~1.9 MB)
// at every start, keeping ~660 KiB of them resident for the life of the process and costing start-up time
// (docs/benchmarks.md, "Memory"). Instead the command runs as a task on HTTPWire's reactor executor or the
// cooperative pool, and the first thread — which is no thread of the pool, so blocking it starves nothing —
// sleeps on a semaphore until the task has finished. Nothing here may run on the main actor: its queue is
// never drained.

import Dispatch
import HTTPWireTransport

/// Waits on the process's first thread for a task that runs elsewhere.
enum MainThread {
    /// Blocks the calling thread, which must be the main thread, until `task` finishes, and returns its
    /// result. The task's last step signals a semaphore; it never waits for this thread.
    static func wait<Success: Sendable>(for task: Task<Success, any Error>) -> Result<Success, any Error> {
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedState<Result<Success, any Error>?>(nil)
        Task.detached {
            let result = await task.result
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // The semaphore orders the store before this load; the lock keeps the access checkable by TSan.
        return outcome.withLock { $0! }
    }
}

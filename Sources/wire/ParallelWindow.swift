// ParallelWindow: which URL a worker of `wire get --parallel N` fetches next (edge layer).
//
// `--parallel N` runs N long-lived worker tasks rather than one task per URL. A task per URL looked
// simpler, but every new task starts with an empty task allocator, so each request paid for fresh
// allocator slabs (the request's async frames, ~25 KB) and the task itself; a worker that fetches
// URL after URL reuses its slabs. Measured with ../shared/bench (20,000 GETs, 64 in flight): wire's CPU
// for the run fell from 1.32 s to 1.17-1.20 s (docs/benchmarks.md has the paired runs). Bodies are still written in the order the URLs
// were given, so the window keeps workers at most `limit` URLs ahead of the last one written: a slow
// first URL holds back the start of new ones instead of letting finished bodies pile up in memory.
// Knows nothing about HTTP.

import HTTPWireTransport

/// Hands out the indices 0..<count in order, never more than `limit` past the last index written.
///
/// ```swift
/// let window = ParallelWindow(count: urls.count, limit: 4 * parallel)
/// while let index = await window.next() { ... }   // in each worker
/// window.written(upTo: n)                         // by the writer, after index n - 1 is out
/// ```
final class ParallelWindow: Sendable {
    private struct State {
        var nextToStart = 0
        var written = 0
        var closed = false
        var waiting: [CheckedContinuation<Int?, Never>] = []

        /// The next index when the window allows one, `.some(nil)` when none will ever come, nil to wait.
        mutating func grant(count: Int, limit: Int) -> Int?? {
            if closed || nextToStart >= count { return .some(nil) }
            guard nextToStart - written < limit else { return nil }
            nextToStart += 1
            return .some(nextToStart - 1)
        }
    }

    private let count: Int
    private let limit: Int
    private let state = LockedState(State())

    /// A window over `count` indices, at most `limit` of them started and not yet written.
    init(count: Int, limit: Int) {
        self.count = count
        self.limit = max(1, limit)
    }

    /// The next index to fetch, or nil when every index has been handed out (or the window was closed).
    /// Suspends while the window is full; it never blocks a thread. Runs on the worker's executor.
    nonisolated(nonsending) func next() async -> Int? {
        let (count, limit) = (self.count, self.limit)
        if let granted = state.withLock({ $0.grant(count: count, limit: limit) }) { return granted }
        return await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> Int?? in
                if let granted = state.grant(count: count, limit: limit) { return granted }
                state.waiting.append(continuation)
                return nil
            }
            if let granted { continuation.resume(returning: granted) }
        }
    }

    /// How many workers are suspended in ``next()``, waiting for the window to move (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Records that every index below `index` has been written, and lets waiting workers go on.
    func written(upTo index: Int) {
        let (count, limit) = (self.count, self.limit)
        let ready = state.withLock { state -> [(CheckedContinuation<Int?, Never>, Int?)] in
            state.written = index
            var ready: [(CheckedContinuation<Int?, Never>, Int?)] = []
            while !state.waiting.isEmpty, let granted = state.grant(count: count, limit: limit) {
                ready.append((state.waiting.removeFirst(), granted))
            }
            return ready
        }
        for (continuation, index) in ready { continuation.resume(returning: index) }
    }

    /// Ends the handing out: waiting and later calls of ``next()`` return nil. Called when the command
    /// stops early (an error, cancellation), so that no worker waits for a window that will not move.
    func close() {
        let waiting = state.withLock { state -> [CheckedContinuation<Int?, Never>] in
            state.closed = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }
}

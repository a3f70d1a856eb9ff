// OrderedDelivery: writes the results of `wire get --parallel N` in the order the URLs were given, by
// whichever worker completes the run (edge layer).
//
// Workers finish out of order. The first version sent every result through an AsyncStream to one writer
// task: a second task hop per request (the yield wakes the writer, which the cooperative pool runs only
// after the workers queued before it), and while the writer waited for its turn the window (ParallelWindow)
// filled and held the workers back. Here the worker that hands in the next result to write writes it
// itself, with every result already waiting behind it; a worker whose result is not next parks it and goes
// on to its next URL. One worker writes at a time (it checks the sink out of the lock while it writes), so
// the sink needs no lock of its own and at most one pool thread ever sits in write(2). Knows nothing about
// HTTP.

import HTTPWireTransport

/// Results handed in by index, in any order, written in index order, each exactly once.
///
/// ```swift
/// let delivery = OrderedDelivery(sink: output, write: { output, body in try output.write(body) },
///                                written: { window.written(upTo: $0) })
/// try delivery.deliver(index, body)   // in each worker, when its result is ready
/// ```
final class OrderedDelivery<Value: Sendable, Sink>: Sendable {
    private struct State {
        /// The sink, or nil while a worker has it checked out to write.
        var sink: Sink?
        var parked: [Int: Value] = [:]
        var nextToWrite = 0

        /// The results from `nextToWrite` on that are all here, in order (empty when the next one is not).
        mutating func takeReady() -> [Value] {
            var ready: [Value] = []
            moveReady(into: &ready)
            return ready
        }

        /// Appends to `ready` the results from `nextToWrite` on that are all here, in order.
        mutating func moveReady(into ready: inout [Value]) {
            while !parked.isEmpty, let value = parked.removeValue(forKey: nextToWrite) {
                ready.append(value)
                nextToWrite += 1
            }
        }
    }

    private let state: LockedState<State>
    private let write: @Sendable (Sink, Value) throws -> Void
    private let written: @Sendable (Int) -> Void

    /// Delivers into `sink` with `write`; after each run of writes, `written` gets how many results (from
    /// index 0) are out, so a window over the indices can move on.
    init(
        sink: Sink, write: @escaping @Sendable (Sink, Value) throws -> Void,
        written: @escaping @Sendable (Int) -> Void
    ) {
        state = LockedState(State(sink: sink))
        self.write = write
        self.written = written
    }

    /// Hands in the result for `index`. When it is the next to write and no other worker is writing, this
    /// call writes it and every result that has arrived in order behind it, including ones handed in by
    /// other workers while it writes; otherwise it parks the result for the worker that writes and returns.
    /// Throws what `write` throws (the sink is then handed back, and nothing more is written by this call).
    func deliver(_ index: Int, _ value: Value) throws {
        let checkedOut = state.withLock { state -> (Sink, [Value])? in
            guard let sink = state.sink else {
                state.parked[index] = value  // another worker is writing: it takes this one too
                return nil
            }
            var ready: [Value]
            if index == state.nextToWrite {
                // The common case: the next to write. Straight to the writer, without a trip through the table
                // (a response is a large value to hash in and move out again).
                ready = [value]
                state.nextToWrite += 1
                state.moveReady(into: &ready)
            } else {
                state.parked[index] = value
                ready = state.takeReady()
            }
            if ready.isEmpty { return nil }
            state.sink = nil
            return (sink, ready)
        }
        guard let (sink, first) = checkedOut else { return }
        var batch = first
        while true {
            do {
                for value in batch { try write(sink, value) }
            } catch {
                state.withLock { $0.sink = sink }
                throw error
            }
            let (count, more) = state.withLock { state -> (Int, [Value]) in
                let count = state.nextToWrite  // every result before this one is written now
                let more = state.takeReady()
                if more.isEmpty { state.sink = sink }
                return (count, more)
            }
            written(count)
            if more.isEmpty { return }
            batch = more
        }
    }

    /// How many results, from index 0 on, have been taken for writing (all of them written once every
    /// ``deliver(_:_:)`` call has returned).
    var writtenCount: Int { state.withLock { $0.nextToWrite } }
}

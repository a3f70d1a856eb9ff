// OrderedDeliveryTests: how `wire get --parallel N` writes bodies that finish out of order — in index order,
// each once, by one writer at a time, with the window told how far the writes have come, and a write's
// error thrown to the worker that met it.

import HTTPWireTransport
import Testing

@testable import wire

/// A sink that records what it was given and notices two writers at once.
private final class RecordingSink: Sendable {
    private struct State {
        var values: [Int] = []
        var writing = 0
        var overlaps = 0
    }
    private let state = LockedState(State())
    let failAt: Int?

    init(failAt: Int? = nil) { self.failAt = failAt }

    struct Failure: Error, Equatable { let index: Int }

    func write(_ value: Int) throws {
        state.withLock { state in
            state.writing += 1
            if state.writing > 1 { state.overlaps += 1 }
        }
        defer { state.withLock { $0.writing -= 1 } }
        if value == failAt { throw Failure(index: value) }
        state.withLock { $0.values.append(value) }
    }

    var values: [Int] { state.withLock { $0.values } }
    var overlaps: Int { state.withLock { $0.overlaps } }
}

@Suite struct OrderedDeliveryTests {
    @Test("results handed in out of order are written in order, by the call that completes the run")
    func outOfOrder() throws {
        let sink = RecordingSink()
        let reports = LockedState<[Int]>([])
        let delivery = OrderedDelivery<Int, RecordingSink>(
            sink: sink, write: { sink, value in try sink.write(value) },
            written: { count in reports.withLock { $0.append(count) } })
        try delivery.deliver(2, 2)
        try delivery.deliver(1, 1)
        #expect(sink.values.isEmpty, "0 is missing: nothing can be written yet")
        #expect(delivery.writtenCount == 0)
        try delivery.deliver(0, 0)
        #expect(sink.values == [0, 1, 2], "the call that handed in 0 wrote the two parked behind it")
        try delivery.deliver(4, 4)
        try delivery.deliver(3, 3)
        #expect(sink.values == [0, 1, 2, 3, 4])
        #expect(reports.withLock { $0 } == [3, 5], "the window hears once per run of writes")
        #expect(delivery.writtenCount == 5)
    }

    @Test("a result handed in while another worker writes is written by that worker before it lets go")
    func handedInDuringAWrite() throws {
        let sink = RecordingSink()
        let box = LockedState<OrderedDelivery<Int, RecordingSink>?>(nil)
        let delivery = OrderedDelivery<Int, RecordingSink>(
            sink: sink,
            write: { sink, value in
                try sink.write(value)
                // Another worker finishes URL 1 while this one is still writing URL 0: it only parks it.
                if value == 0, let delivery = box.withLock({ $0 }) { try delivery.deliver(1, 1) }
            }, written: { _ in })
        box.withLock { $0 = delivery }
        defer { box.withLock { $0 = nil } }
        try delivery.deliver(0, 0)
        #expect(sink.values == [0, 1], "no later call would come to write 1: the writer must take it")
    }

    @Test(
        "eight workers handing in 2,000 results in a shuffled order: all written once, in order, one writer at a time")
    func concurrentWorkers() async throws {
        let count = 2_000
        let sink = RecordingSink()
        let reported = LockedState(0)
        let delivery = OrderedDelivery<Int, RecordingSink>(
            sink: sink, write: { sink, value in try sink.write(value) },
            written: { count in reported.withLock { $0 = max($0, count) } })
        // Each worker takes every eighth index of a shuffled order, so runs complete in every worker.
        let order = Array(0..<count).shuffled()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in stride(from: worker, to: count, by: 8) {
                        try delivery.deliver(order[index], order[index])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(sink.values == Array(0..<count))
        #expect(sink.overlaps == 0)
        #expect(reported.withLock { $0 } == count)
        #expect(delivery.writtenCount == count)
    }

    @Test("a write's error is thrown to the worker that met it; the results before it are out")
    func writeError() throws {
        let sink = RecordingSink(failAt: 2)
        let delivery = OrderedDelivery<Int, RecordingSink>(
            sink: sink, write: { sink, value in try sink.write(value) }, written: { _ in })
        try delivery.deliver(1, 1)
        try delivery.deliver(2, 2)
        #expect(throws: RecordingSink.Failure(index: 2)) { try delivery.deliver(0, 0) }
        #expect(sink.values == [0, 1])
    }
}

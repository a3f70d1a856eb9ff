import Testing

@testable import HTTPWire

@Suite struct TransferProgressTests {
    @Test("the fraction is nil without a total and stays within 0...1")
    func fraction() {
        #expect(TransferProgress(receivedBytes: 10, expectedBytes: nil).fraction == nil)
        #expect(TransferProgress(receivedBytes: 250, expectedBytes: 1000).fraction == 0.25)
        #expect(TransferProgress(receivedBytes: 0, expectedBytes: 0).fraction == 1)
        #expect(TransferProgress(receivedBytes: 1500, expectedBytes: 1000).fraction == 1)
        #expect(TransferProgress(receivedBytes: -5, expectedBytes: 1000).fraction == 0)
    }

    @Test("insane speeds are dropped from snapshots")
    func saneSnapshot() {
        #expect(TransferProgress(receivedBytes: 1, expectedBytes: 2, bytesPerSecond: .nan).bytesPerSecond == nil)
        #expect(TransferProgress(receivedBytes: 1, expectedBytes: 2, bytesPerSecond: .infinity).bytesPerSecond == nil)
        #expect(TransferProgress(receivedBytes: 1, expectedBytes: 2, bytesPerSecond: -3).bytesPerSecond == nil)
        #expect(TransferProgress(receivedBytes: 1, expectedBytes: 2, bytesPerSecond: 3).bytesPerSecond == 3)
    }
}

@Suite struct ThroughputMeterTests {
    /// Feeds `bytesPerTick` every 100 ms from `start` for `ticks` ticks.
    static func feed(_ meter: inout ThroughputMeter, bytesPerTick: Int64, ticks: Int, from start: Duration) {
        for tick in 1...ticks {
            meter.record(bytes: bytesPerTick, at: start + .milliseconds(100 * tick))
        }
    }

    @Test("no speed until the first window closes, then the window's rate")
    func firstWindow() {
        var meter = ThroughputMeter()
        Self.feed(&meter, bytesPerTick: 1000, ticks: 9, from: .zero)
        #expect(meter.bytesPerSecond == nil)
        #expect(meter.estimatedTimeRemaining(remainingBytes: 100) == nil)
        meter.record(bytes: 1000, at: .seconds(1))
        #expect(meter.bytesPerSecond == 10_000)
        #expect(meter.totalBytes == 10_000)
    }

    @Test("window rates are smoothed, and a long quiet window weighs more")
    func smoothing() throws {
        var meter = ThroughputMeter(window: .seconds(1), smoothingFactor: 0.3)
        Self.feed(&meter, bytesPerTick: 1000, ticks: 10, from: .zero)
        meter.record(bytes: 0, at: .seconds(2))  // one silent second
        #expect(abs(try #require(meter.bytesPerSecond) - 7000) < 0.001)

        var stalled = ThroughputMeter(window: .seconds(1), smoothingFactor: 0.3)
        Self.feed(&stalled, bytesPerTick: 1000, ticks: 10, from: .zero)
        stalled.record(bytes: 0, at: .seconds(4))  // three silent seconds: 0.7^3 of the old rate remains
        #expect(abs(try #require(stalled.bytesPerSecond) - 3430) < 0.001)
    }

    @Test("a steady rate stays steady and the estimate follows it")
    func steadyRate() throws {
        var meter = ThroughputMeter()
        Self.feed(&meter, bytesPerTick: 500, ticks: 50, from: .zero)
        #expect(abs(try #require(meter.bytesPerSecond) - 5000) < 0.001)
        #expect(meter.estimatedTimeRemaining(remainingBytes: 12_500) == .milliseconds(2500))
        #expect(meter.estimatedTimeRemaining(remainingBytes: 0) == .zero)

        let progress = meter.progress(receivedBytes: 30_000, expectedBytes: 40_000)
        #expect(progress.fraction == 0.75)
        #expect(progress.estimatedTimeRemaining == .seconds(2))
        #expect(meter.progress(receivedBytes: 30_000, expectedBytes: nil).estimatedTimeRemaining == nil)
    }

    @Test("time running backwards and negative counts leave the meter monotonic and finite")
    func hostileInput() throws {
        var meter = ThroughputMeter()
        meter.record(bytes: 100, at: .seconds(5))
        meter.record(bytes: 100, at: .seconds(3))
        meter.record(bytes: -1000, at: .seconds(6))
        #expect(meter.totalBytes == 200)
        let rate = try #require(meter.bytesPerSecond)
        #expect(rate.isFinite && rate >= 0)
        meter.record(bytes: Int64.max, at: .seconds(6))
        meter.record(bytes: Int64.max, at: .seconds(8))
        #expect(meter.totalBytes == Int64.max)
        #expect(meter.bytesPerSecond.map(\.isFinite) == true)
    }

    @Test("a stalled transfer has no time estimate")
    func zeroRate() {
        var meter = ThroughputMeter()
        meter.record(bytes: 0, at: .seconds(2))
        #expect(meter.bytesPerSecond == 0)
        #expect(meter.estimatedTimeRemaining(remainingBytes: 10) == nil)
    }

    @Test("out-of-range settings fall back to the defaults")
    func settings() {
        let meter = ThroughputMeter(window: .zero, smoothingFactor: 1.5)
        #expect(meter.window == .seconds(1))
        #expect(meter.smoothingFactor == 0.3)
    }
}

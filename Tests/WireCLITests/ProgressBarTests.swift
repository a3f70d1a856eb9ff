// ProgressBarTests: the progress bar's frames, redraw rate, speed window, units and final line, driven by
// a fake clock; and its show-or-not decision.

import HTTPWireTransport
import Testing

@testable import wire

/// A clock the test moves by hand.
final class FakeClock: Sendable {
    private let instant = LockedState(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(by duration: Duration) { instant.withLock { $0 = $0.advanced(by: duration) } }
}

@Suite struct ProgressBarTests {
    private static let mebibyte: Int64 = 1 << 20

    private func bar(total: Int64?, already: Int64 = 0, columns: Int = 80) -> (ProgressBar, FakeClock) {
        let clock = FakeClock()
        return (ProgressBar(total: total, alreadyTransferred: already, columns: columns, now: { clock.now }), clock)
    }

    @Test("a known total shows percent, bar, sizes, speed and ETA across the terminal's width")
    func knownTotalFrame() throws {
        var (bar, clock) = bar(total: 10 * Self.mebibyte)
        _ = bar.update(transferred: 0)
        clock.advance(by: .seconds(1))
        let update = bar.update(transferred: Self.mebibyte)
        let frame = try #require(update)
        let expected =
            "\r 10% [" + String(repeating: "#", count: 3) + String(repeating: " ", count: 29)
            + "] 1.0 MiB / 10.0 MiB  1.0 MiB/s  ETA 0:09"
        #expect(frame == expected)
        #expect(frame.count == 80)
    }

    @Test("an unknown total shows bytes and speed only, padded to cover the previous frame")
    func unknownTotalFrame() throws {
        var (bar, clock) = bar(total: nil)
        clock.advance(by: .seconds(2))
        let update = bar.update(transferred: 3 * Self.mebibyte)
        let frame = try #require(update)
        let text = "3.0 MiB  1.5 MiB/s"
        #expect(frame == "\r" + text + String(repeating: " ", count: 79 - text.count))
    }

    @Test("the first sample draws at once, then at most one frame per 100 ms")
    func redrawRate() {
        var (bar, clock) = bar(total: 100 * Self.mebibyte)
        var frames = 0
        for step in 0...100 {
            if bar.update(transferred: Int64(step) * 1000) != nil { frames += 1 }
            clock.advance(by: .milliseconds(10))
        }
        // Samples at 0, 10, ..., 1000 ms: frames at 0, 100, ..., 1000 ms.
        #expect(frames == 11)
        #expect(bar.update(transferred: 200_000) == nil)
    }

    @Test("the speed covers the last five seconds, so a stall shows 0 B/s and no ETA")
    func stallShowsZeroSpeed() throws {
        var (bar, clock) = bar(total: 10 * Self.mebibyte)
        clock.advance(by: .seconds(1))
        let update = bar.update(transferred: 5 * Self.mebibyte)
        let moving = try #require(update)
        #expect(moving.contains("5.0 MiB/s  ETA 0:01"))
        var last = ""
        for _ in 0..<60 {
            clock.advance(by: .milliseconds(100))
            last = bar.update(transferred: 5 * Self.mebibyte) ?? last
        }
        #expect(last.contains(" 50% ["))
        #expect(last.contains("0 B/s  ETA --:--"))
    }

    @Test("a resumed transfer counts earlier bytes in the percentage but not in the speed")
    func resumed() throws {
        var (bar, clock) = bar(total: 100 * Self.mebibyte, already: 50 * Self.mebibyte)
        clock.advance(by: .seconds(1))
        let update = bar.update(transferred: 51 * Self.mebibyte)
        let frame = try #require(update)
        #expect(frame.hasPrefix("\r 51% ["))
        #expect(frame.hasSuffix("51.0 MiB / 100.0 MiB  1.0 MiB/s  ETA 0:49"))
    }

    @Test("finish draws the average speed and time taken on a final line, once")
    func finish() {
        var (bar, clock) = bar(total: 4 * Self.mebibyte)
        _ = bar.update(transferred: 0)
        clock.advance(by: .seconds(2))
        _ = bar.update(transferred: 4 * Self.mebibyte)
        let final = bar.finish()
        #expect(final.hasPrefix("\r100% [" + String(repeating: "#", count: 10)))
        #expect(final.hasSuffix("] 4.0 MiB / 4.0 MiB  2.0 MiB/s  in 0:02\n"))
        #expect(final.count == 81)
        #expect(bar.finish() == "")
        clock.advance(by: .seconds(1))
        #expect(bar.update(transferred: 5 * Self.mebibyte) == nil)
    }

    @Test("percent rounds down and stays within 0...100")
    func percent() throws {
        for (total, done, shown) in [(1000, 999, " 99%"), (1000, 2000, "100%"), (0, 0, "100%"), (1000, 0, "  0%")] {
            var (bar, _) = bar(total: Int64(total))
            let update = bar.update(transferred: Int64(done))
            let frame = try #require(update)
            #expect(frame.hasPrefix("\r" + shown), "\(done) of \(total)")
        }
    }

    @Test("frames fill the width less one column; narrow terminals drop the bar, then cut the text")
    func widths() throws {
        for columns in [10, 30, 40, 60, 80, 132] {
            var (bar, clock) = bar(total: 10 * Self.mebibyte, columns: columns)
            clock.advance(by: .seconds(1))
            let update = bar.update(transferred: Self.mebibyte)
            let frame = try #require(update)
            #expect(frame.count == columns, "columns \(columns)")
            #expect(frame.contains("[") == (columns >= 60), "columns \(columns)")
        }
    }

    @Test(
        "byte counts use binary units with one decimal",
        arguments: [
            (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), (1_048_575, "1.0 MiB"),
            (10 * 1_073_741_824, "10.0 GiB"), (3 * 1_099_511_627_776 / 2, "1.5 TiB"), (Int64.max, "8.0 EiB"),
        ] as [(Int64, String)])
    func byteText(bytes: Int64, text: String) {
        #expect(ProgressBar.byteText(bytes) == text)
    }

    @Test(
        "durations read M:SS, then H:MM:SS, and give up past 99 hours",
        arguments: [
            (0, "0:00"), (9, "0:09"), (61, "1:01"), (3599, "59:59"), (3600, "1:00:00"), (3725, "1:02:05"),
            (400_000, "--:--"),
        ]
            as [(Double, String)])
    func clockText(seconds: Double, text: String) {
        #expect(ProgressBar.clockText(seconds: seconds) == text)
    }

    @Test("shown when stderr is a terminal, unless --progress or --no-progress says otherwise")
    func showDecision() {
        #expect(ProgressBar.isShown(requested: nil, stderrIsTerminal: true))
        #expect(!ProgressBar.isShown(requested: nil, stderrIsTerminal: false))
        #expect(ProgressBar.isShown(requested: true, stderrIsTerminal: false))
        #expect(!ProgressBar.isShown(requested: false, stderrIsTerminal: true))
    }
}

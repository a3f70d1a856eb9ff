// LiveProgressBarTests: the bar redraws on its own during a stall (the bytes of the last redraw interval
// are drawn, the speed falls), writes notes on lines of their own, and draws nothing after it stopped.
// The bar's clock is a FakeClock the test moves; the redraw task runs on real time, so each test waits
// for the frame it expects instead of timing anything.

import HTTPWireTransport
import TestSupport
import Testing

@testable import wire

@Suite struct LiveProgressBarTests {
    private static let mebibyte: Int64 = 1 << 20

    /// What the bar wrote, in order.
    final class Written: Sendable {
        private let lines = LockedState<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ text: String) { lines.withLock { $0.append(text) } }
    }

    private func live(total: Int64?) -> (LiveProgressBar, FakeClock, Written) {
        let clock = FakeClock()
        let written = Written()
        let bar = ProgressBar(total: total, alreadyTransferred: 0, columns: 80, now: { clock.now })
        return (LiveProgressBar(bar, write: { written.append($0) }), clock, written)
    }

    @Test("bytes that came inside the last interval before a stall are drawn without another update")
    func stallDrawsLastBytes() async {
        let (bar, clock, written) = live(total: 10 * Self.mebibyte)
        bar.update(transferred: 0)
        clock.advance(by: .milliseconds(10))
        bar.update(transferred: 3 * Self.mebibyte)  // inside the interval: not drawn now
        #expect(written.all.count == 1)
        clock.advance(by: .milliseconds(200))
        // No update comes (the transfer stalls); the redraw task draws the 3 MiB.
        #expect(await eventually { written.all.contains { $0.contains("3.0 MiB / 10.0 MiB") } })
        bar.finish()
        await bar.waitUntilStopped()
    }

    @Test("during a stall the speed falls to zero as the five-second window moves past the bytes")
    func stallSpeedFalls() async {
        let (bar, clock, written) = live(total: nil)
        bar.update(transferred: 0)
        clock.advance(by: .seconds(1))
        bar.update(transferred: 5 * Self.mebibyte)
        // Redraws with no new bytes: first 5 MiB over the four seconds the window still spans (1.25 MiB/s), then none
        // over the three seconds since that redraw.
        clock.advance(by: .seconds(3))
        #expect(await eventually { written.all.last?.contains("5.0 MiB  1.3 MiB/s") == true }, "\(written.all)")
        clock.advance(by: .seconds(3))
        #expect(await eventually { written.all.last?.contains("5.0 MiB  0 B/s") == true }, "\(written.all)")
        bar.stop()
        await bar.waitUntilStopped()
    }

    @Test("notes go on a line of their own; after finish or stop nothing more is drawn")
    func notesAndStop() async {
        let (bar, clock, written) = live(total: 10 * Self.mebibyte)
        bar.note("wire: before any frame")
        bar.update(transferred: Self.mebibyte)
        bar.note("wire: resuming")
        #expect(written.all[0] == "wire: before any frame\n")
        #expect(written.all[1].hasPrefix("\r"))
        #expect(written.all[2] == "\nwire: resuming\n")
        bar.finish()
        let count = written.all.count
        #expect(written.all.last?.hasSuffix("\n") == true)
        await bar.waitUntilStopped()
        clock.advance(by: .seconds(1))
        bar.update(transferred: 2 * Self.mebibyte)
        bar.stop()
        #expect(written.all.count == count)
    }

    @Test("stopping a bar with a frame on its line ends that line; one without a frame writes nothing")
    func stopEndsTheLine() async {
        let (drawn, _, drawnWritten) = live(total: nil)
        drawn.update(transferred: 1)
        drawn.stop()
        #expect(drawnWritten.all.last == "\n")
        let (silent, _, silentWritten) = live(total: nil)
        silent.stop()
        #expect(silentWritten.all.isEmpty)
        await drawn.waitUntilStopped()
        await silent.waitUntilStopped()
    }
}

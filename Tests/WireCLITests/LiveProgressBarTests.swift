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

    /// A live bar on a fake clock, and what it wrote, in order.
    private func live(total: Int64?) -> (LiveProgressBar, FakeClock, LockedState<[String]>) {
        let clock = FakeClock()
        let written = LockedState<[String]>([])
        let bar = ProgressBar(total: total, alreadyTransferred: 0, columns: 80, now: { clock.now })
        return (LiveProgressBar(bar, write: { text in written.withLock { $0.append(text) } }), clock, written)
    }

    @Test("bytes that came inside the last interval before a stall are drawn without another update")
    func stallDrawsLastBytes() async {
        let (bar, clock, written) = live(total: 10 * Self.mebibyte)
        bar.update(transferred: 0)
        clock.advance(by: .milliseconds(10))
        bar.update(transferred: 3 * Self.mebibyte)  // inside the interval: not drawn now
        #expect(written.withLock { $0 }.count == 1)
        clock.advance(by: .milliseconds(200))
        // No update comes (the transfer stalls); the redraw task draws the 3 MiB.
        #expect(await eventually { written.withLock { $0 }.contains { $0.contains("3.0 MiB / 10.0 MiB") } })
        bar.finish()
        await bar.waitUntilStopped()
    }

    @Test("during a stall the speed falls to zero as the five-second window moves past the bytes")
    func stallSpeedFalls() async {
        let (bar, clock, written) = live(total: nil)
        bar.update(transferred: 0)
        clock.advance(by: .seconds(1))
        bar.update(transferred: 5 * Self.mebibyte)
        // Redraws with no new bytes: first 5 MiB over the four seconds the window still spans (1.25 MiB/s),
        // then none over the three seconds since that redraw.
        let lastFrame = { written.withLock { $0.last } ?? "" }
        clock.advance(by: .seconds(3))
        #expect(await eventually { lastFrame().contains("5.0 MiB  1.3 MiB/s") }, "\(written.withLock { $0 })")
        clock.advance(by: .seconds(3))
        #expect(await eventually { lastFrame().contains("5.0 MiB  0 B/s") }, "\(written.withLock { $0 })")
        bar.stop()
        await bar.waitUntilStopped()
    }

    @Test("notes go on a line of their own; after finish or stop nothing more is drawn")
    func notesAndStop() async {
        let (bar, clock, written) = live(total: 10 * Self.mebibyte)
        bar.note("wire: before any frame")
        bar.update(transferred: Self.mebibyte)
        bar.note("wire: resuming")
        #expect(written.withLock { $0 }[0] == "wire: before any frame\n")
        #expect(written.withLock { $0 }[1].hasPrefix("\r"))
        #expect(written.withLock { $0 }[2] == "\nwire: resuming\n")
        bar.finish()
        let count = written.withLock { $0 }.count
        #expect(written.withLock { $0 }.last?.hasSuffix("\n") == true)
        await bar.waitUntilStopped()
        clock.advance(by: .seconds(1))
        bar.update(transferred: 2 * Self.mebibyte)
        bar.stop()
        #expect(written.withLock { $0 }.count == count)
    }

    @Test("stopping a bar with a frame on its line ends that line; one without a frame writes nothing")
    func stopEndsTheLine() async {
        let (drawn, _, drawnWritten) = live(total: nil)
        drawn.update(transferred: 1)
        drawn.stop()
        #expect(drawnWritten.withLock { $0 }.last == "\n")
        let (silent, _, silentWritten) = live(total: nil)
        silent.stop()
        #expect(silentWritten.withLock { $0 }.isEmpty)
        await drawn.waitUntilStopped()
        await silent.waitUntilStopped()
    }
}

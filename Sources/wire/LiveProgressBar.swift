// LiveProgressBar: a ProgressBar that also redraws on its own while a transfer runs (edge layer).
// Fed by the transfer loop, as ProgressBar is; in addition a small task redraws it every `redrawInterval`,
// so a transfer that stalls still shows its last bytes and a speed that falls towards zero, as curl's meter
// does. Without it a bar is only redrawn when bytes arrive, at most ten times a second: the bytes of the
// last tenth of a second before a stall were never drawn, and the speed stayed at its last value.
// Every write to the terminal goes through one lock, so frames and notes never interleave.

import HTTPWireTransport

/// A progress line on stderr that stays current during stalls.
///
/// ```swift
/// let bar = LiveProgressBar(ProgressBar(total: response.expectedContentLength))
/// defer { bar.stop() }                      // after a failure: no final line, the ticker ends
/// for try await piece in response.body { received += Int64(piece.count); bar.update(transferred: received) }
/// bar.finish()                              // the final line, ending in "\n"
/// ```
final class LiveProgressBar: Sendable {
    private struct State {
        var bar: ProgressBar
        var isStopped = false
        /// A frame is on the terminal's current line: a note or a stop must begin a new line first.
        var isOnFrameLine = false

        /// Writes `frame` (when there is one) and remembers that the line holds a frame.
        mutating func draw(_ frame: String?, _ write: @Sendable (String) -> Void) {
            guard let frame else { return }
            write(frame)
            isOnFrameLine = true
        }
    }

    private let state: LockedState<State>
    private let write: @Sendable (String) -> Void
    private let ticker = LockedState<Task<Void, Never>?>(nil)

    /// Starts drawing `bar` through `write` (stderr by default): at once on the first update, then at most
    /// once per `ProgressBar.redrawInterval`, with or without updates.
    init(_ bar: ProgressBar, write: @escaping @Sendable (String) -> Void = { _ = Terminal.writeError($0) }) {
        self.state = LockedState(State(bar: bar))
        self.write = write
        let task = Task { [weak self] in
            while (try? await Task.sleep(for: ProgressBar.redrawInterval)) != nil {
                guard let self, self.redraw() else { return }
            }
        }
        ticker.withLock { $0 = task }
    }

    deinit { ticker.withLock { $0?.cancel() } }

    /// Records the running byte count; draws a frame when one is due.
    func update(transferred bytes: Int64) {
        state.withLock { state in
            guard !state.isStopped else { return }
            state.draw(state.bar.update(transferred: bytes), write)
        }
    }

    /// Writes `line` on a line of its own below the bar (a resume or a retry note); the next frame starts
    /// on the line after it.
    func note(_ line: String) {
        state.withLock { state in
            write((state.isOnFrameLine ? "\n" : "") + line + "\n")
            state.isOnFrameLine = false
        }
    }

    /// Draws the final line (average speed, time taken) and stops redrawing.
    func finish() {
        state.withLock { state in
            guard !state.isStopped else { return }
            state.isStopped = true
            write(state.bar.finish())
        }
        ticker.withLock { $0?.cancel() }
    }

    /// Stops redrawing without a final line (the transfer failed, or starts over with a bar of its own):
    /// a frame left on the line is ended with a newline, so what is written next starts on a clean line.
    func stop() {
        state.withLock { state in
            guard !state.isStopped else { return }
            state.isStopped = true
            if state.isOnFrameLine { write("\n") }
        }
        ticker.withLock { $0?.cancel() }
    }

    /// Waits until the redrawing task has ended (tests: nothing is drawn after `finish` or `stop`).
    func waitUntilStopped() async {
        await ticker.withLock { $0 }?.value
    }

    /// The ticker's redraw; false once the bar is stopped.
    private func redraw() -> Bool {
        state.withLock { state in
            guard !state.isStopped else { return false }
            state.draw(state.bar.redraw(), write)
            return true
        }
    }
}

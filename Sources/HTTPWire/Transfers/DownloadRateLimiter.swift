// DownloadRateLimiter: a bandwidth budget in bytes per second that one download, or many sharing it
// (a `DownloadManager`'s overall limit), spend as they read — curl's `--limit-rate`, aria2's
// `--max-overall-download-limit`.
// Downloads layer: arithmetic on the reactor's monotonic clock under one lock, and waits that are reactor
// timers (`Reactor.shared.sleep(until:)`): no thread sleeps and nothing spins. It must not read or write
// bytes itself; `DownloadTransfer` asks it before reading on.
//
// The schedule is a virtual clock (the "generic cell rate algorithm" of ATM networks): every byte costs
// 1/rate seconds, `theoreticalArrival` is when the bytes spent so far would have been received at exactly
// the rate, and a reader that is ahead of it by more than `burst` waits the difference. So over any
// window the bytes read are at most rate × window + rate × burst: over 5 s with the 100 ms burst, within
// 2% of the rate. Not reading makes the socket's receive window fill, and TCP slows the sender — the
// limit is enforced on the network, not only on the disk.

import HTTPWireTransport

/// A shared budget of bytes per second.
///
/// ```swift
/// let overall = DownloadRateLimiter(bytesPerSecond: 2 << 20)     // 2 MiB/s for everything that shares it
/// var options = DownloadOptions()
/// options.sharedRateLimiter = overall
/// options.maxBytesPerSecond = 512 << 10                          // and 512 KiB/s for this download
/// ```
public final class DownloadRateLimiter: Sendable {
    /// The budget.
    public let bytesPerSecond: Int64
    /// How far ahead of the exact schedule a reader may get before it waits: 100 ms of the rate. Large
    /// enough that waits are few (ten a second at most for a steady stream), small enough to keep the
    /// rate within 2% over 5 s.
    static let burst: Duration = .milliseconds(100)

    /// Monotonic nanoseconds at which the bytes spent so far are "due"; owned by the lock.
    private let theoreticalArrival = LockedState<UInt64>(0)

    /// A budget of `bytesPerSecond` (at least 1).
    public init(bytesPerSecond: Int64) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    /// The most bytes worth reading in one go under this budget: what one burst allows, at least 16 KiB.
    var roundBytes: Int64 { max(16 * 1024, bytesPerSecond / 10) }

    /// Spends `bytes` just read and waits, on a reactor timer, until the reader is back within `burst`
    /// of the schedule. Throws `CancellationError` when the task is cancelled while waiting.
    package func spend(_ bytes: Int) async throws {
        guard bytes > 0 else { return }
        let now = Deadline.nowNanoseconds()
        let cost = UInt64((Double(bytes) * 1e9 / Double(bytesPerSecond)).rounded(.up))
        let burstNanoseconds =
            UInt64(Self.burst.components.attoseconds / 1_000_000_000)
            + UInt64(Self.burst.components.seconds) * 1_000_000_000
        let wait = theoreticalArrival.withLock { arrival -> UInt64 in
            arrival = max(arrival, now) + cost
            return arrival > now + burstNanoseconds ? arrival - now - burstNanoseconds : 0
        }
        guard wait > 0 else { return }
        try await Reactor.shared.sleep(until: .after(.nanoseconds(Int64(wait))))
    }
}

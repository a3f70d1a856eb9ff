// DownloadOptions: what a caller can choose about one download — start over or resume, verify a checksum,
// retry, and how often progress is reported and bytes are made durable.
// Features layer: a plain value; the download reads it, nothing here does I/O.
//
// The defaults are what a person typing `wire download URL` wants: resume what is on disk when the server
// can prove the file is unchanged, report progress ten times a second, and make received bytes durable four
// times a second. This file must not decide anything; `Download` and `ResumePlan` do.

import HTTPWireCodec

/// Choices for one download made with ``HTTPClient/download(from:to:options:)-(String,_,_)``.
///
/// ```swift
/// var options = DownloadOptions()
/// options.expectedSHA256 = SHA256Digest(hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
/// options.retry = RetryPolicy(maxRetries: 5)
/// let download = client.download(from: "https://example.test/big.iso", to: "big.iso", options: options)
/// ```
public struct DownloadOptions: Sendable {
    /// Discard any partial data (`dest.part` and its record) and start from byte zero, like deleting them
    /// by hand first. Default false: resume what is on disk.
    public var restart: Bool = false
    /// When set, the finished file's SHA-256 must equal it, or the download fails with
    /// ``HTTPWireError/checksumMismatch(expected:actual:)`` and the part file is not put in place. A
    /// destination that already holds a file with this SHA-256 (and no pending part file) is not fetched
    /// again: the download finishes at once with `requests == 0`, at the cost of reading that file once.
    public var expectedSHA256: SHA256Digest?
    /// How often a failed attempt is tried again. A connection dropped or stalled mid-body is retried from
    /// the bytes already on disk, never from zero. Default nil: the client's ``ClientConfiguration/retry``
    /// (``RetryPolicy/none`` unless set). The same value as `requestOptions.retry`.
    public var retry: RetryPolicy? {
        get { requestOptions.retry }
        set { requestOptions.retry = newValue }
    }
    /// Timeouts, redirects, credentials and retries for each request of the download, overriding the
    /// client's field by field as for any request (``RequestOptions``). Validation does not apply: a
    /// download accepts only the answers it can use (2xx, and the 206 and 416 of a resume), and fails with
    /// ``HTTPWireError/httpStatus(_:)`` on the others.
    public var requestOptions = RequestOptions()
    /// Extra request fields (authorization, a user agent). `Range` and `If-Range` are the download's own
    /// and are replaced.
    public var fields: HTTPFields = [:]
    /// Resume only when `If-Range` can be sent (a strong ETag or a Last-Modified date), so a server-side
    /// change can never be spliced onto old bytes. False resumes like `curl -C -`, trusting only the 206's
    /// `Content-Range` and validators. Default true.
    public var requiresValidator: Bool = true
    /// The least time between two `.progress` events. Default 100 ms: ten a second is smooth for a
    /// progress bar and costs nothing on the data path. Bytes that arrive inside an interval are reported
    /// when it ends, so a burst followed by a stall shows every byte of the burst; during the stall itself
    /// a snapshot comes once a second (or once an interval, if longer), its speed falling.
    public var progressInterval: Duration = .milliseconds(100)
    /// The longest time received bytes go without being flushed (fdatasync) and counted in the record,
    /// which is what survives a power loss; a stream that goes quiet is flushed at once. A process kill
    /// loses nothing either way: bytes written are counted by the progress mark within 5 ms (see the
    /// Downloads article's crash model). Default 250 ms.
    public var commitInterval: Duration = .milliseconds(250)
    /// Also commit after this many bytes, whatever the time. Default 64 MiB: at disk speed a commit per
    /// few hundred milliseconds, without flushing so often that `fdatasync` throttles the transfer.
    public var commitBytes: Int64 = 64 << 20
    /// Use splice(2) to move a plain-HTTP, Content-Length body from the socket into the file without
    /// copying it through user space. Default true; false forces the copying path (for tests).
    public var allowsZeroCopy: Bool = true

    /// The most bytes per second this download reads, like curl's `--limit-rate`; nil (the default) for
    /// no limit. Paced on the reactor's clock, accurate to a few percent over seconds (see
    /// ``DownloadRateLimiter``).
    public var maxBytesPerSecond: Int64?
    /// A budget shared with other downloads — a ``DownloadManager``'s overall limit, or one the app
    /// creates — spent as well as `maxBytesPerSecond`. Default nil.
    public var sharedRateLimiter: DownloadRateLimiter?

    /// How many connections one download may use at once (aria2's `--split`, axel's `-n`). Above 1, a
    /// download whose first response shows `Accept-Ranges: bytes`, a strong `ETag` and a length of at least
    /// 2 MiB is cut into that many segments (none under 1 MiB), each fetched with its own Range request and
    /// written at its own offset; a connection that finishes takes half of the largest remaining segment.
    /// Anything else — no ranges, a weak or no validator, a server that answers a segment with 200 — is
    /// one stream, as with 1. Default 1: one connection is what a server expects from one client, and on
    /// an unthrottled link it is as fast; more pays when the server limits each connection's rate.
    public var segments: Int = 1

    /// How long the first connection of a segmented download runs alone before the others may join
    /// (default 250 ms). After it, and every `segmentProbe` after that, they join when the rest of the file
    /// would take the first connection more than a second at the rate it has shown; the part it has not yet
    /// reached is then cut into ``segments`` equal parts. A fast server so keeps one stream — more connections
    /// to a server that is already the bottleneck only add connects, requests and steals (on loopback, four
    /// segments of a 64 MiB file from nginx took 1.2 times as long as one stream) — while a server that limits
    /// each connection's rate gets its segments a moment later. `.zero` opens every connection at once, the
    /// file cut in equal parts from the start. A resumed segmented download always continues every segment
    /// at once.
    public var segmentProbe: Duration = .milliseconds(250)

    /// Options with the defaults described on each property.
    public init() {}
}

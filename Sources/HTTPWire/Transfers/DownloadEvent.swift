// DownloadEvent: what a running download tells its observer — where it starts, how far it is, pauses,
// retries, restarts and the end.
// Features layer: plain values; `Download` emits them, a progress bar or a log consumes them.
//
// Progress events are rate-limited (`DownloadOptions.progressInterval`, ten a second by default) and the
// event stream keeps only the newest events when its consumer is slow, so observing a download can never
// slow it down or grow memory. This file must not format anything for a terminal.

import HTTPWireCodec

/// One thing that happened to a ``Download``, in the order it happened.
///
/// ```swift
/// for await event in download.events {
///     if case .progress(let progress) = event { bar.update(progress) }
/// }
/// let result = try await download.result()
/// ```
public enum DownloadEvent: Sendable, Hashable {
    /// An attempt's response was accepted: bytes go to `destination`'s part file from `offset` on
    /// (non-zero when resuming), and `expectedBytes` is the final size when the server announced it.
    case started(destination: String, offset: Int64, expectedBytes: Int64?)
    /// Bytes received so far (including those already on disk), the total when known, the smoothed speed
    /// and the time left. At most one per `progressInterval` — the newest held back until the interval
    /// ends, so none is lost to the rate limit — and one when the body ends. While no byte arrives (a
    /// stalled server), one a second anyway, with the same bytes and the speed falling as the meter counts
    /// the silence, as curl's meter keeps ticking.
    case progress(TransferProgress)
    /// The partial data was discarded and the download starts from byte zero, for this reason.
    case restarted(ResumeRestartCause)
    /// An attempt failed with `error` and the next one starts after `delay`, from the bytes on disk.
    case retrying(attempt: Int, delay: Duration, error: HTTPWireError)
    /// `pause()` took effect: the bytes so far are on disk and counted in the record.
    case paused(TransferProgress)
    /// `resume()` took effect: a new request continues from the bytes on disk.
    case resumed
    /// The file is complete and in place. The last event.
    case finished(DownloadResult)
}

/// Why a download threw its partial data away (``DownloadEvent/restarted(_:)``).
public enum ResumeRestartCause: Sendable, Hashable {
    /// The caller asked for it (``DownloadOptions/restart``).
    case requested
    /// The part file could not be resumed from: no record, another URL, no validator, too short.
    case notResumable(FreshReason)
    /// The server's answer to the resume request showed the bytes on disk cannot be continued.
    case serverAnswer(RestartReason)

    /// Why a download starts at byte zero although a part file or record may exist.
    public enum FreshReason: Sendable, Hashable {
        /// No part file on disk: nothing to resume.
        case noPartialFile
        /// No usable record beside the part file: its bytes cannot be trusted.
        case noRecord
        /// The record names another URL.
        case differentURL
        /// The record counts zero committed bytes.
        case nothingCommitted
        /// The part file is shorter than the record says: it was truncated or replaced behind our back.
        case partialFileTooShort(committedBytes: Int64, partialFileSize: Int64)
        /// The record has no validator usable in `If-Range` and the plan requires one (see `init`).
        case noValidator
        /// The request is not a GET without a body (a POST download, say): `Range` is defined for GET only
        /// (RFC 9110 §14.2), so the request is sent again from byte zero.
        case methodNotResumable
    }

    /// Why a response to a resume request leads to starting over.
    public enum RestartReason: Sendable, Hashable {
        /// 200 to a range request: the server ignored `Range`, or `If-Range` found the representation
        /// changed (RFC 9110 §13.1.5 answers a failed `If-Range` with the whole representation).
        case rangeIgnored
        /// The 206 carries an `ETag` or `Last-Modified` different from the record's.
        case representationChanged
        /// The 206 starts somewhere other than where the part file ends.
        case unexpectedRangeStart(expected: Int64, received: Int64)
        /// The 206's complete length differs from the length the record expects.
        case lengthChanged(expected: Int64, received: Int64)
        /// 416 whose complete length is missing or differs from the bytes on disk.
        case notSatisfiable(completeLength: Int64?)
    }
}

/// How a finished download ended: where the file is and what it took.
public struct DownloadResult: Sendable, Hashable {
    /// The path of the finished file (the destination, or the file chosen in the destination directory).
    public var location: String
    /// The file's size in bytes.
    public var bytes: Int64
    /// How many of those bytes were on disk from an earlier attempt or run (0 for a fresh download).
    public var resumedFromBytes: Int64
    /// The file's SHA-256, when ``DownloadOptions/expectedSHA256`` asked for a check (it matched).
    public var sha256: SHA256Digest?
    /// How many requests the download sent (resumes and restarts after the first included).
    public var requests: Int
    /// The status of the response that completed the file: 200 for a whole body, 206 for the rest of a
    /// resumed one, or 416 when the part file was already complete (RFC 9110 §15.5.17: the server says
    /// there is nothing past the bytes on disk). Equal to `head.status`.
    public var status: Int { head.status.rawValue }
    /// The head of the response that completed the file: its status line and fields (`Content-Type`,
    /// `ETag`, `Last-Modified`, `Content-Disposition`, ...), for a caller that needs more than the bytes.
    public var head: ResponseHead

    /// A result with the given values; `head` defaults to a bare `200 OK`.
    public init(
        location: String, bytes: Int64, resumedFromBytes: Int64, sha256: SHA256Digest?, requests: Int,
        head: ResponseHead = ResponseHead(version: .http1_1, status: 200, reason: "OK", fields: [:])
    ) {
        self.location = location
        self.bytes = bytes
        self.resumedFromBytes = resumedFromBytes
        self.sha256 = sha256
        self.requests = requests
        self.head = head
    }
}

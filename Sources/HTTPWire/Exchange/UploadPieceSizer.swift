// UploadPieceSizer: how many bytes the next sendfile(2) call of a file upload may move (client layer).
// A value with two rules and no I/O: RequestBodyWriter times each piece and tells the sizer; it reads no clock.

/// Chooses how many bytes the next sendfile(2) call may move.
///
/// Each call is one round trip through the reactor (a wake-up and a task resumption, tens of
/// microseconds), and the owner reports progress after each. Small pieces give smooth progress but cost
/// throughput at loopback speeds (256 KiB pieces at 3 GB/s are 12,000 round trips a second); large pieces
/// are cheap but, on a slow link, leave progress frozen for seconds (4 MiB at 1 MB/s). So the size adapts:
/// it doubles while a piece takes under half of ``targetDuration`` and halves when one takes longer,
/// between ``minimumBytes`` and ``maximumBytes``. A report therefore comes at least every 4 MiB, and every
/// 256 KiB or about every 50 ms, whichever the link allows.
struct UploadPieceSizer {
    /// The smallest piece: the progress granularity on a slow link (the size of a block the other paths write).
    static let minimumBytes: Int64 = 256 * 1024
    /// The largest piece: at loopback speed a reactor round trip per ~1.5 ms of sending.
    static let maximumBytes: Int64 = 4 * 1024 * 1024
    /// How long one piece should take.
    static let targetDuration: Duration = .milliseconds(50)

    /// The size of the next piece.
    private(set) var nextPieceBytes: Int64 = minimumBytes

    /// Adjusts the next size after a piece of `bytes` took `elapsed`. A short piece (the file's end) says
    /// nothing about the link and is ignored.
    mutating func pieceSent(bytes: Int64, in elapsed: Duration) {
        guard bytes >= nextPieceBytes else { return }
        if elapsed * 2 < Self.targetDuration {
            nextPieceBytes = min(Self.maximumBytes, nextPieceBytes * 2)
        } else if elapsed > Self.targetDuration {
            nextPieceBytes = max(Self.minimumBytes, nextPieceBytes / 2)
        }
    }
}

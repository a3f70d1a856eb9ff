// ResumeSegment: one connection's share of a segmented download, as a resume record stores it — a byte
// range of the file and how many of its leading bytes are on disk.
// Downloads layer: a value with its one-line text form; no I/O. `SegmentPlan` creates and splits segments;
// `ResumeRecord` writes and reads them; this file only says what a segment is.
//
// A segment's bytes are always written from its start onwards, in order, so one count per segment says
// exactly which bytes of it are present: `range.lowerBound ..< range.lowerBound + committedBytes`. That is
// what lets a record of a few lines describe a file that several connections fill at once.

/// A byte range of a segmented download and how many of its leading bytes are counted.
///
/// ```swift
/// let segment = ResumeSegment(range: 2_000_000..<4_000_000, committedBytes: 500_000)
/// segment.nextByte            // 2_500_000: where its connection continues
/// segment.isComplete          // false
/// ```
package struct ResumeSegment: Sendable, Hashable {
    /// The segment's bytes: `first ..< last + 1`, never empty.
    package var range: Range<Int64>
    /// How many bytes from `range.lowerBound` on are present, in `0...length`.
    package var committedBytes: Int64

    /// A segment with the given values; `ResumeRecord` checks them when it encodes or decodes.
    package init(range: Range<Int64>, committedBytes: Int64) {
        self.range = range
        self.committedBytes = committedBytes
    }

    /// The segment's size in bytes.
    package var length: Int64 { range.upperBound - range.lowerBound }

    /// The first byte not yet present.
    package var nextByte: Int64 { range.lowerBound + committedBytes }

    /// Bytes still missing.
    package var remainingBytes: Int64 { range.upperBound - nextByte }

    /// True when every byte of the segment is present.
    package var isComplete: Bool { committedBytes >= length }

    /// Reads `FIRST-LAST COUNT` (the text after `segment: `): decimal positions as in `Content-Range`
    /// (RFC 9110 §14.4, both inclusive), then the count. Throws `ResumeRecord.Damage`; the ordering of
    /// segments is checked by the record.
    init(decoding text: Substring) throws(ResumeRecord.Damage) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        let bounds = parts.first?.split(separator: "-", omittingEmptySubsequences: false) ?? []
        guard parts.count == 2, bounds.count == 2 else {
            throw ResumeRecord.Damage(reason: "segment is not FIRST-LAST COUNT")
        }
        let first = try ResumeRecord.decimal(String(bounds[0]), key: "segment")
        let last = try ResumeRecord.decimal(String(bounds[1]), key: "segment")
        let count = try ResumeRecord.decimal(String(parts[1]), key: "segment")
        guard last >= first else { throw ResumeRecord.Damage(reason: "segment ends before it starts") }
        self.init(range: first..<(last + 1), committedBytes: count)
    }

    /// Merges neighbours where the first is complete: the pair is one segment whose count runs on into
    /// the second, because a complete segment's bytes are all present. The result has the same bytes
    /// present and at most one more segment than there are incomplete ones, which keeps a record short
    /// however often work was stolen.
    package static func merged(_ segments: [ResumeSegment]) -> [ResumeSegment] {
        var merged: [ResumeSegment] = []
        for segment in segments {
            if let last = merged.last, last.isComplete, last.range.upperBound == segment.range.lowerBound {
                merged[merged.count - 1] = ResumeSegment(
                    range: last.range.lowerBound..<segment.range.upperBound,
                    committedBytes: last.length + segment.committedBytes)
            } else {
                merged.append(segment)
            }
        }
        return merged
    }
}

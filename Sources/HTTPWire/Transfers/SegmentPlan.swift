// SegmentPlan: who fetches which bytes of a segmented download — the first split into segments, the hand-out
// of segments to connections, and work stealing when a connection runs out of work.
// Downloads layer: a pure value, stepped by events (`assignment`, `reserve`, `wrote`, `released`); no I/O,
// no clock, no tasks. `SegmentedDownload` owns one under a lock and performs the requests it implies.
//
// The bookkeeping follows one invariant: a segment's bytes are written from its start onwards, in order,
// so one count per segment says exactly which bytes are present (`ResumeSegment`). Work stealing keeps it:
// a connection that finishes takes the *upper* half of the largest remaining segment, and the owner of that
// segment simply stops earlier. A connection first `reserve`s the bytes it is about to write (one splice
// round or one received slice), and a steal never cuts below a reservation, so no byte is written by two
// connections and none is left out.

/// The segments of one download and which connection works on each.
///
/// ```swift
/// var plan = SegmentPlan(length: 40 << 20, connections: 4)      // four 10 MiB segments
/// let work = plan.assignment()!                                 // the first unassigned segment
/// let end = plan.reserve(work.id, upTo: work.range.lowerBound + 65_536)
/// plan.wrote(work.id, bytes: end - work.range.lowerBound)       // its count grows
/// plan.released(work.id)                                        // done (complete, or the connection failed)
/// ```
struct SegmentPlan: Sendable, Hashable {
    /// The smallest piece worth its own request: a segment is never made smaller by a split, and a steal
    /// happens only when the half taken is at least this large. A request costs a round trip and a head
    /// (on a LAN well under a millisecond, over the internet 20–200 ms); 1 MiB keeps that cost below a few
    /// percent at 10–50 MB/s and still spreads a 10 MiB file over four connections.
    static let minimumSegmentBytes: Int64 = 1 << 20

    /// One segment and its worker.
    struct Part: Sendable, Hashable {
        /// Stable while the segment exists (indices move when a steal inserts a segment).
        var id: Int
        var segment: ResumeSegment
        /// A connection works on it.
        var isAssigned: Bool
        /// The end of the bytes its connection may be writing now; a steal never cuts below it.
        var reservedEnd: Int64
    }

    /// What a connection should fetch: the segment `id`, from its next byte to its (current) end.
    struct Assignment: Sendable, Hashable {
        var id: Int
        var range: Range<Int64>
        /// True when the segment was created by stealing half of another.
        var isStolen: Bool
    }

    /// The segments, in file order, covering `0..<length` exactly.
    private(set) var parts: [Part]
    private var nextID: Int
    let minimumStealBytes: Int64

    /// A plan for a fresh download of `length` bytes over at most `connections` segments of equal size
    /// (the last takes the remainder), none smaller than `minimumSegmentBytes`, at least one.
    init(length: Int64, connections: Int, minimumSegmentBytes: Int64 = Self.minimumSegmentBytes) {
        let count = Int(max(1, min(Int64(max(1, connections)), length / max(1, minimumSegmentBytes))))
        let size = length / Int64(count)
        var segments: [ResumeSegment] = []
        for index in 0..<count {
            let lower = Int64(index) * size
            let upper = index == count - 1 ? length : lower + size
            segments.append(ResumeSegment(range: lower..<upper, committedBytes: 0))
        }
        self.init(resuming: segments, minimumSegmentBytes: minimumSegmentBytes)
    }

    /// A plan that continues the segments of a resume record (each from its committed count).
    init(resuming segments: [ResumeSegment], minimumSegmentBytes: Int64 = Self.minimumSegmentBytes) {
        parts = segments.enumerated().map { index, segment in
            Part(id: index, segment: segment, isAssigned: false, reservedEnd: segment.nextByte)
        }
        nextID = segments.count
        minimumStealBytes = max(1, minimumSegmentBytes)
    }

    /// The segments as a record stores them, neighbours merged where the first is complete.
    var segments: [ResumeSegment] { ResumeSegment.merged(parts.map(\.segment)) }

    /// Bytes present, all segments together.
    var committedBytes: Int64 { parts.reduce(0) { $0 + $1.segment.committedBytes } }

    /// True when every byte is present.
    var isComplete: Bool { parts.allSatisfy(\.segment.isComplete) }

    /// The current end of segment `id` (it moves down when another connection steals from it).
    func upperBound(of id: Int) -> Int64? {
        parts.first { $0.id == id }?.segment.range.upperBound
    }

    /// Work for a connection that has none: an incomplete segment nobody works on (after a resume there may
    /// be more than connections), else the upper half of the assigned segment with the most bytes left when
    /// that half is at least `minimumStealBytes`; nil when there is nothing worth taking.
    mutating func assignment() -> Assignment? {
        if let index = parts.firstIndex(where: { !$0.isAssigned && !$0.segment.isComplete }) {
            parts[index].isAssigned = true
            let segment = parts[index].segment
            return Assignment(id: parts[index].id, range: segment.nextByte..<segment.range.upperBound, isStolen: false)
        }
        // The largest remaining segment, counting only bytes beyond what its connection has reserved.
        func available(_ part: Part) -> Int64 {
            part.segment.range.upperBound - max(part.segment.nextByte, part.reservedEnd)
        }
        guard
            let victim = parts.indices.filter({ parts[$0].isAssigned }).max(by: {
                available(parts[$0]) < available(parts[$1])
            }),
            available(parts[victim]) / 2 >= minimumStealBytes
        else { return nil }
        let old = parts[victim].segment
        let split = old.range.upperBound - available(parts[victim]) / 2
        parts[victim].segment = ResumeSegment(range: old.range.lowerBound..<split, committedBytes: old.committedBytes)
        let stolen = Part(
            id: nextID, segment: ResumeSegment(range: split..<old.range.upperBound, committedBytes: 0),
            isAssigned: true,
            reservedEnd: split)
        nextID += 1
        parts.insert(stolen, at: victim + 1)
        return Assignment(id: stolen.id, range: stolen.segment.range, isStolen: true)
    }

    /// Cuts a plan of one assigned segment — a first connection that ran alone — into up to `count`
    /// segments, none under the minimum: its connection keeps the first, the others are left for
    /// ``assignment()`` to hand out. When the connection has not yet reserved past the first of `count`
    /// equal parts of the file, the cut is exactly that of a fresh plan; otherwise what it has not
    /// reserved is cut into `count` equal parts. Returns false, changing nothing, when the plan has more
    /// than one segment or nothing left is worth cutting.
    mutating func split(into count: Int) -> Bool {
        guard parts.count == 1, let only = parts.first, only.segment.range.lowerBound == 0 else { return false }
        let length = only.segment.range.upperBound
        let from = max(only.segment.nextByte, only.reservedEnd)
        let fresh = SegmentPlan(length: length, connections: count, minimumSegmentBytes: minimumStealBytes)
        let bounds: [Int64]
        if fresh.parts.count > 1, from <= fresh.parts[0].segment.range.upperBound {
            bounds = fresh.parts.map(\.segment.range.upperBound)
        } else {
            let remaining = length - from
            let pieces = Int(max(1, min(Int64(max(1, count)), remaining / minimumStealBytes)))
            guard pieces > 1 else { return false }
            let size = remaining / Int64(pieces)
            bounds = (1...pieces).map { $0 == pieces ? length : from + Int64($0) * size }
        }
        var first = only
        first.segment = ResumeSegment(range: 0..<bounds[0], committedBytes: only.segment.committedBytes)
        parts = [first]
        for (lower, upper) in zip(bounds, bounds.dropFirst()) {
            parts.append(
                Part(
                    id: nextID, segment: ResumeSegment(range: lower..<upper, committedBytes: 0), isAssigned: false,
                    reservedEnd: lower))
            nextID += 1
        }
        return true
    }

    /// The connection of segment `id` is about to write up to `end`: returns the end it may write to (the
    /// segment's end when that is lower) and holds it against steals. A result at or below the segment's
    /// next byte means the segment is done.
    mutating func reserve(_ id: Int, upTo end: Int64) -> Int64 {
        guard let index = parts.firstIndex(where: { $0.id == id }) else { return 0 }
        let allowed = min(end, parts[index].segment.range.upperBound)
        parts[index].reservedEnd = max(parts[index].reservedEnd, allowed)
        return allowed
    }

    /// `bytes` more of segment `id` are in the file, right after the ones counted before.
    mutating func wrote(_ id: Int, bytes: Int64) {
        guard let index = parts.firstIndex(where: { $0.id == id }) else { return }
        let segment = parts[index].segment
        parts[index].segment.committedBytes = min(segment.length, segment.committedBytes + bytes)
    }

    /// The connection of segment `id` stops working on it: the segment is complete, or the connection
    /// failed (another connection, or the next attempt, continues it from its count).
    mutating func released(_ id: Int) {
        guard let index = parts.firstIndex(where: { $0.id == id }) else { return }
        parts[index].isAssigned = false
        parts[index].reservedEnd = parts[index].segment.nextByte
    }
}

// SegmentPlanTests: the segment bookkeeping stepped by hand — the first split, the hand-out, work stealing
// (upper half of the largest remaining segment, never below a reservation, never a piece under the
// minimum) and the segments a record stores.

import Testing

@testable import HTTPWire

@Suite struct SegmentPlanTests {
    static let mebibyte: Int64 = 1 << 20

    @Test("a fresh plan cuts the file into equal segments, the last one taking the remainder")
    func splitsEqually() {
        let plan = SegmentPlan(length: 10 * Self.mebibyte + 3, connections: 4)
        #expect(plan.parts.map(\.segment.range.lowerBound) == [0, 2_621_440, 5_242_880, 7_864_320])
        #expect(plan.parts.last?.segment.range.upperBound == 10 * Self.mebibyte + 3)
        #expect(plan.segments.count == 4)
        #expect(plan.committedBytes == 0)
    }

    @Test("no segment is smaller than the minimum: a 2.5 MiB file gets two segments, a small one gets one")
    func respectsMinimum() {
        #expect(SegmentPlan(length: 5 * Self.mebibyte / 2, connections: 8).parts.count == 2)
        #expect(SegmentPlan(length: 1000, connections: 8).parts.count == 1)
        #expect(SegmentPlan(length: 1000, connections: 8).parts.first?.segment.range == 0..<1000)
    }

    @Test("unassigned segments are handed out first, in file order")
    func handsOutInOrder() throws {
        var plan = SegmentPlan(length: 8 * Self.mebibyte, connections: 2)
        let firstWork = plan.assignment()
        let first = try #require(firstWork)
        let secondWork = plan.assignment()
        let second = try #require(secondWork)
        #expect(first.range == 0..<(4 * Self.mebibyte))
        #expect(second.range == (4 * Self.mebibyte)..<(8 * Self.mebibyte))
        #expect(!first.isStolen && !second.isStolen)
    }

    @Test("a connection that finishes steals the upper half of the largest remaining segment")
    func stealsUpperHalf() throws {
        var plan = SegmentPlan(length: 8 * Self.mebibyte, connections: 2)
        let firstWork = plan.assignment()
        let first = try #require(firstWork)
        let secondWork = plan.assignment()
        let second = try #require(secondWork)
        // The first finishes its 4 MiB; the second has written 1 MiB and reserved nothing more.
        #expect(plan.reserve(first.id, upTo: 4 * Self.mebibyte) == 4 * Self.mebibyte)
        plan.wrote(first.id, bytes: 4 * Self.mebibyte)
        plan.released(first.id)
        #expect(plan.reserve(second.id, upTo: 5 * Self.mebibyte) == 5 * Self.mebibyte)
        plan.wrote(second.id, bytes: Self.mebibyte)
        let stolenWork = plan.assignment()
        let stolen = try #require(stolenWork)
        // 3 MiB remain in the second segment: the thief takes the upper 1.5 MiB.
        #expect(stolen.isStolen)
        #expect(stolen.range == (13 * Self.mebibyte / 2)..<(8 * Self.mebibyte))
        #expect(plan.upperBound(of: second.id) == 13 * Self.mebibyte / 2)
        // The owner may now write only up to the new end.
        #expect(plan.reserve(second.id, upTo: 8 * Self.mebibyte) == 13 * Self.mebibyte / 2)
        // The record: the complete first segment merged with the second, then the stolen one.
        #expect(
            plan.segments == [
                ResumeSegment(range: 0..<(13 * Self.mebibyte / 2), committedBytes: 5 * Self.mebibyte),
                ResumeSegment(range: (13 * Self.mebibyte / 2)..<(8 * Self.mebibyte), committedBytes: 0),
            ])
    }

    @Test("a steal never cuts below what the owner reserved")
    func respectsReservation() throws {
        var plan = SegmentPlan(length: 8 * Self.mebibyte, connections: 2)
        let firstWork = plan.assignment()
        let first = try #require(firstWork)
        let secondWork = plan.assignment()
        let second = try #require(secondWork)
        plan.released(first.id)
        plan.wrote(first.id, bytes: 4 * Self.mebibyte)
        // The owner is writing [4 MiB, 6 MiB): only the 2 MiB after it can be split, the thief takes 1 MiB.
        _ = plan.reserve(second.id, upTo: 6 * Self.mebibyte)
        let stolenWork = plan.assignment()
        let stolen = try #require(stolenWork)
        #expect(stolen.range == (7 * Self.mebibyte)..<(8 * Self.mebibyte))
        #expect(plan.upperBound(of: second.id) == 7 * Self.mebibyte)
    }

    @Test("nothing is stolen when the half would be under the minimum")
    func noTinySteals() throws {
        var plan = SegmentPlan(length: 4 * Self.mebibyte, connections: 2)
        let firstWork = plan.assignment()
        let first = try #require(firstWork)
        let secondWork = plan.assignment()
        let second = try #require(secondWork)
        plan.wrote(first.id, bytes: 2 * Self.mebibyte)
        plan.released(first.id)
        plan.wrote(second.id, bytes: Self.mebibyte + 1)
        // 1 MiB − 1 byte left: half of it is not worth a request.
        #expect(plan.assignment() == nil)
        plan.wrote(second.id, bytes: Self.mebibyte - 1)
        plan.released(second.id)
        #expect(plan.isComplete)
        #expect(plan.segments == [ResumeSegment(range: 0..<(4 * Self.mebibyte), committedBytes: 4 * Self.mebibyte)])
    }

    @Test("a failed connection's segment is handed out again from its count")
    func releasedSegmentContinues() throws {
        var plan = SegmentPlan(
            resuming: [
                ResumeSegment(range: 0..<(2 * Self.mebibyte), committedBytes: 500),
                ResumeSegment(range: (2 * Self.mebibyte)..<(4 * Self.mebibyte), committedBytes: 0),
            ])
        let firstWork = plan.assignment()
        let first = try #require(firstWork)
        #expect(first.range == 500..<(2 * Self.mebibyte))
        plan.wrote(first.id, bytes: 1000)
        plan.released(first.id)
        let againWork = plan.assignment()
        let again = try #require(againWork)
        #expect(again.id == first.id)
        #expect(again.range == 1500..<(2 * Self.mebibyte))
    }

    @Test("a first connection's plan of one segment is cut like a fresh plan while it is still in the first part")
    func splitEarlyIsAFreshPlan() throws {
        var plan = SegmentPlan(length: 8 * Self.mebibyte, connections: 1)
        let assigned = plan.assignment()
        let work = try #require(assigned)
        #expect(work.range == 0..<(8 * Self.mebibyte))
        let end = plan.reserve(work.id, upTo: 65_536)
        plan.wrote(work.id, bytes: end)
        let isSplit = plan.split(into: 4)
        #expect(isSplit)
        #expect(
            plan.parts.map(\.segment.range)
                == SegmentPlan(length: 8 * Self.mebibyte, connections: 4).parts.map(\.segment.range))
        #expect(plan.parts[0].segment.committedBytes == 65_536 && plan.parts[0].isAssigned)
        #expect(plan.parts.dropFirst().allSatisfy { !$0.isAssigned && $0.segment.committedBytes == 0 })
        // The first connection stops at its part's new end; the others are handed out in order.
        #expect(plan.upperBound(of: work.id) == 2 * Self.mebibyte)
        let next = plan.assignment()
        #expect(next?.range == (2 * Self.mebibyte)..<(4 * Self.mebibyte))
        let isSplitAgain = plan.split(into: 4)
        #expect(!isSplitAgain, "a plan is cut once")
    }

    @Test("later, what the first connection has not reserved is cut in equal parts; too little is not cut")
    func splitLateCutsTheRest() throws {
        var plan = SegmentPlan(length: 8 * Self.mebibyte, connections: 1)
        let assigned = plan.assignment()
        let work = try #require(assigned)
        let reached = 3 * Self.mebibyte
        plan.wrote(work.id, bytes: plan.reserve(work.id, upTo: reached) - 1_000)  // reserved 3 MiB, wrote less
        let isSplit = plan.split(into: 4)
        #expect(isSplit)
        let piece = (8 * Self.mebibyte - reached) / 4
        #expect(
            plan.parts.map(\.segment.range.lowerBound) == [
                0, reached + piece, reached + 2 * piece, reached + 3 * piece,
            ])
        #expect(plan.parts.last?.segment.range.upperBound == 8 * Self.mebibyte)
        #expect(plan.committedBytes == reached - 1_000)

        var nearlyDone = SegmentPlan(length: 8 * Self.mebibyte, connections: 1)
        let lastAssigned = nearlyDone.assignment()
        let last = try #require(lastAssigned)
        _ = nearlyDone.reserve(last.id, upTo: 8 * Self.mebibyte - Self.mebibyte / 2)
        let isNearlyDoneSplit = nearlyDone.split(into: 4)
        #expect(!isNearlyDoneSplit, "half a mebibyte left: no piece would reach the minimum")
        #expect(nearlyDone.parts.count == 1)
    }
}

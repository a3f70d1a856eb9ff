// DownloadCommitTests: the bytes on disk and the count on disk stay in step (issue #15, part 1). A stream
// that goes quiet gets its bytes flushed and counted at once, not only while data flows; the progress mark
// `dest.part.mark` is trusted on this boot only, for the same representation, and only as far as the part
// file reaches; version 2 records (segments, boot-id) round-trip and refuse what would misplace bytes.

import Foundation
import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct DownloadCommitTests {
    static let size = 1_000_000
    static let stallPoint = 300_000

    private static func committedBytes(atPath path: String) -> Int64? {
        let isMark = path.hasSuffix(".mark")
        guard
            case .valid(let record) = isMark ? ResumeRecord.loadMark(fromPath: path) : ResumeRecord.load(fromPath: path)
        else { return nil }
        return record.committedBytes
    }

    /// Writes `mark` as the committer does, in a file of its own.
    private static func writeMark(_ mark: ResumeRecord, toPath path: String, paddingTo length: Int = 0) throws {
        let file = try DiskFile.open(path, for: .writing(creating: true))
        defer { file.close() }
        _ = try mark.writeMark(into: file, paddingTo: length)
    }

    @Test(
        "a stream that stalls has every received byte flushed and counted in the record soon after",
        .timeLimit(.scaledMinutes(1)), arguments: [true, false])
    func stalledStreamIsCommitted(zeroCopy: Bool) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(Self.size)
        let server = try DownloadTestServer(content: content, script: [.stallAfter(Self.stallPoint)])
        let client = HTTPClient()
        var options = DownloadOptions()
        options.allowsZeroCopy = zeroCopy
        options.progressInterval = .zero
        // A long commit interval: only the quiet stream can explain a flushed record in time.
        options.commitInterval = .seconds(30)
        let destination = scratch.file("stall.bin")
        let download = client.download(from: server.url, to: destination, options: options)
        await download.waitForProgress(atLeast: Int64(Self.stallPoint))
        // The committer flushes within `quietDelay` (50 ms) of the last byte; 5 s allows a loaded machine.
        let isCounted = await eventually(within: .seconds(5)) {
            Self.committedBytes(atPath: destination + ".part.resume") == Int64(Self.stallPoint)
        }
        #expect(
            isCounted, "record says \(String(describing: Self.committedBytes(atPath: destination + ".part.resume")))")
        #expect(await DownloadScratch.contents(destination + ".part") == Array(content[..<Self.stallPoint]))
        download.cancel()
        await #expect(throws: CancellationError.self) { try await download.result() }
        #expect(!DownloadScratch.exists(destination + ".part.mark"), "the mark is removed once the record counts all")
        await client.shutdown()
        await server.stop()
    }

    /// Stands for a disk whose fdatasync takes its time: the first flush waits until the test opens the gate.
    private final class SlowFirstFlush: Sendable {
        let gate = DispatchSemaphore(value: 0)
        let calls = LockedState(0)

        func flush(_ file: DiskFile, _ record: ResumeRecord, _ destination: String) throws {
            let call = calls.withLock { count in
                count += 1
                return count
            }
            if call == 1 { gate.wait() }  // on a BlockingWorker thread, never the cooperative pool
            try DownloadPartialFile.commit(file, record: record, destination: destination)
        }
    }

    @Test(
        "the progress mark keeps following the writes while a flush waits on a slow disk", .timeLimit(.scaledMinutes(1))
    )
    func marksGoOnDuringASlowFlush() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let file = DownloadPartialFile(destination: scratch.file("slow.bin"))
        let opened = ResumeRecord(
            url: "http://h/slow.bin", entityTag: "\"v1\"", lastModified: nil, expectedLength: 10_000, committedBytes: 0)
        try await DownloadPartialFile.runBlocking { try file.open(truncatingTo: 0, record: opened, hashing: false) }
        var options = DownloadOptions()
        options.commitInterval = .seconds(30)  // only the quiet stream (50 ms) starts the first flush
        let slow = SlowFirstFlush()
        let committer = DownloadCommitter(file: file, record: opened, options: options, flush: slow.flush)
        committer.update(opened.counting(1_000))
        // The stream goes quiet: the first flush starts, and waits.
        try #require(await eventually { slow.calls.withLock { $0 } == 1 })
        #expect(Self.committedBytes(atPath: file.markPath) == 1_000)
        committer.update(opened.counting(4_000))
        // Before the fix the tick awaited its flush, and the mark stayed at 1,000 until the disk answered.
        let isMarked = await eventually(within: .seconds(5)) { Self.committedBytes(atPath: file.markPath) == 4_000 }
        #expect(isMarked, "mark says \(String(describing: Self.committedBytes(atPath: file.markPath)))")
        #expect(Self.committedBytes(atPath: file.recordPath) == 0, "the first flush is still waiting")
        slow.gate.signal()
        #expect(await committer.finish() == nil)
        #expect(Self.committedBytes(atPath: file.recordPath) == 4_000)
        #expect(!DownloadScratch.exists(file.markPath), "the record counts everything, so the mark is gone")
    }

    // MARK: The progress mark

    static let record = ResumeRecord(
        url: "http://h/file.bin", entityTag: "\"v1\"", lastModified: nil, expectedLength: 1000, committedBytes: 100)

    /// Writes a 600-byte part file, the record (counting 100) and `mark`, then inspects them.
    private static func inspect(mark: ResumeRecord?, markText: String? = nil) throws -> ResumeRecord? {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let file = DownloadPartialFile(destination: destination)
        try Data(DownloadScratch.pattern(600)).write(to: URL(fileURLWithPath: file.partialPath))
        try record.write(toPath: file.recordPath)
        if let mark { try Self.writeMark(mark, toPath: file.markPath) }
        if let markText { try Data(markText.utf8).write(to: URL(fileURLWithPath: file.markPath)) }
        return file.inspect().record
    }

    @Test("a mark from this boot counts the bytes written since the last flush")
    func markOfThisBoot() throws {
        let bootID = try #require(BootIdentity.current, "no /proc/sys/kernel/random/boot_id")
        #expect(try Self.inspect(mark: Self.record.counting(400, bootID: bootID))?.committedBytes == 400)
        #expect(try Self.inspect(mark: nil)?.committedBytes == 100)
    }

    @Test("a mark is ignored after a reboot, for another representation, past the part file, or damaged")
    func untrustedMarks() throws {
        let bootID = try #require(BootIdentity.current)
        let otherBoot = "00000000-0000-4000-8000-000000000000"
        var changed = Self.record.counting(400, bootID: bootID)
        changed.entityTag = "\"v2\""
        let cases: [(ResumeRecord?, String?)] = [
            (Self.record.counting(400, bootID: otherBoot), nil),  // written before a reboot: may be lost
            (changed, nil),  // the file changed on the server since
            (Self.record.counting(700, bootID: bootID), nil),  // counts more than the 600 bytes on disk
            (Self.record.counting(50, bootID: bootID), nil),  // behind the record: the record wins
            (nil, "httpwire-resume 2\nurl: http://h/file.bin\ncommit"),  // torn
            (nil, "\u{7F}ELF garbage\n"),  // foreign
        ]
        for (mark, text) in cases {
            #expect(try Self.inspect(mark: mark, markText: text)?.committedBytes == 100)
        }
    }

    @Test("the mark a download resumes from stays until the record that replaces it is written")
    func markOutlivesAFailedOpen() throws {
        let bootID = try #require(BootIdentity.current)
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let file = DownloadPartialFile(destination: scratch.file("file.bin"))
        try Data(DownloadScratch.pattern(600)).write(to: URL(fileURLWithPath: file.partialPath))
        try Self.record.write(toPath: file.recordPath)
        try Self.writeMark(Self.record.counting(400, bootID: bootID), toPath: file.markPath)
        let resumed = try #require(file.inspect().record)
        #expect(resumed.committedBytes == 400)
        // A directory where the record's temporary file goes: the open fails after its flush, as a kill
        // during that flush would stop it.
        let blocker = file.recordPath + ".tmp"
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
        #expect(throws: HTTPWireError.self) { try file.open(truncatingTo: 400, record: resumed, hashing: false) }
        #expect(file.inspect().record?.committedBytes == 400, "the mark still counts the 400 bytes")
        try FileManager.default.removeItem(atPath: blocker)
        try file.open(truncatingTo: 400, record: resumed, hashing: false)
        #expect(Self.committedBytes(atPath: file.recordPath) == 400)
        #expect(!DownloadScratch.exists(file.markPath), "the record now counts what the mark did")
        // Starting over from 0 cuts what a mark counts: that mark goes before anything else.
        try Self.writeMark(Self.record.counting(400, bootID: bootID), toPath: file.markPath)
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
        #expect(throws: HTTPWireError.self) {
            try file.open(truncatingTo: 0, record: Self.record.counting(0), hashing: false)
        }
        #expect(!DownloadScratch.exists(file.markPath))
        file.closeDescriptor()
    }

    @Test("a mark rewritten shorter in place is padded with NULs, which only the mark reader strips")
    func shorterMarkInPlace() throws {
        let bootID = try #require(BootIdentity.current)
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let path = scratch.file("file.bin.part.mark")
        // Three segments, then one after a merge: the second mark is shorter than the first.
        let long = Self.segmented.counting(
            0,
            segments: [
                ResumeSegment(range: 0..<1_000_000, committedBytes: 1_000_000),
                ResumeSegment(range: 1_000_000..<2_000_000, committedBytes: 1_000_000),
                ResumeSegment(range: 2_000_000..<4_000_000, committedBytes: 600_000),
            ], bootID: bootID)
        let short = Self.segmented.counting(
            0, segments: [ResumeSegment(range: 0..<4_000_000, committedBytes: 2_700_000)], bootID: bootID)
        let file = try DiskFile.open(path, for: .writing(creating: true))
        defer { file.close() }
        let longLength = try long.writeMark(into: file, paddingTo: 0)
        #expect(try short.writeMark(into: file, paddingTo: longLength) == longLength)
        #expect(try file.status().size == Int64(longLength))
        guard case .valid(let read) = ResumeRecord.loadMark(fromPath: path) else {
            Issue.record("the padded mark does not decode")
            return
        }
        #expect(read.segments == short.segments && read.committedBytes == 2_700_000)
        // The strict record reader refuses the padding: a flushed record never has any.
        guard case .unusable = ResumeRecord.load(fromPath: path) else {
            Issue.record("the record reader accepted NUL padding")
            return
        }
    }

    // MARK: Version 2 records

    static let segmented = ResumeRecord(
        url: "https://example.test/big.iso", entityTag: "\"v7\"", lastModified: nil, expectedLength: 4_000_000,
        committedBytes: 0
    ).counting(
        0,
        segments: [
            ResumeSegment(range: 0..<2_000_000, committedBytes: 1_000_000),
            ResumeSegment(range: 2_000_000..<4_000_000, committedBytes: 500_000),
        ])

    @Test("a segmented record lists each segment's range and count, and round-trips")
    func segmentedRecord() throws {
        #expect(Self.segmented.committedBytes == 1_500_000)
        let text = try Self.segmented.encoded()
        #expect(
            text == """
                httpwire-resume 2
                url: https://example.test/big.iso
                etag: "v7"
                expected-length: 4000000
                committed-bytes: 1500000
                segment: 0-1999999 1000000
                segment: 2000000-3999999 500000

                """)
        #expect(try ResumeRecord(decoding: Array(text.utf8)) == Self.segmented)
        let mark = Self.record.counting(300, bootID: "3f1c2d4e-0000-4000-8000-123456789abc")
        #expect(try ResumeRecord(decoding: Array(mark.encoded().utf8)) == mark)
        #expect(try !Self.record.encoded().contains("httpwire-resume 2"), "single-stream records stay version 1")
    }

    @Test(
        "refuses segments that leave a gap, overlap, overcount or disagree with committed-bytes",
        arguments: [
            "segment: 0-1999999 1000000\nsegment: 2000001-3999999 500000\n",  // gap
            "segment: 0-1999999 1000000\nsegment: 1999999-3999999 500001\n",  // overlap
            "segment: 0-1999999 2000001\nsegment: 2000000-3999999 0\n",  // counts past its end
            "segment: 0-1999999 1000000\nsegment: 2000000-3999999 400000\n",  // sum is not 1500000
            "segment: 0-1999999 1000000\nsegment: 2000000-3000000 500000\n",  // ends before the length
            "segment: 0-1999999 1000000 7\nsegment: 2000000-3999999 500000\n",  // not FIRST-LAST COUNT
            "segment: 5-4 0\n",
        ])
    func refusesBadSegments(segments: String) {
        let text =
            "httpwire-resume 2\nurl: https://example.test/big.iso\nexpected-length: 4000000\n"
            + "committed-bytes: 1500000\n" + segments
        #expect(throws: ResumeRecord.Damage.self) { try ResumeRecord(decoding: Array(text.utf8)) }
    }

    @Test("merges a complete segment into the next one, keeping the same bytes counted")
    func mergesSegments() {
        let merged = ResumeSegment.merged([
            ResumeSegment(range: 0..<100, committedBytes: 100),
            ResumeSegment(range: 100..<200, committedBytes: 30),
            ResumeSegment(range: 200..<300, committedBytes: 0),
        ])
        #expect(
            merged == [
                ResumeSegment(range: 0..<200, committedBytes: 130), ResumeSegment(range: 200..<300, committedBytes: 0),
            ])
    }
}

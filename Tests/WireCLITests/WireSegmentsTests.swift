// WireSegmentsTests: `wire download --segments N` (one file over N connections), the same killed with
// SIGKILL mid-way and run again — every segment resumes from the count on disk, with a real second process
// — and `wire download -i LIST`, several downloads from a file that resume together.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@Suite(.serialized) struct WireSegmentsTests {
    static let mebibyte = 1 << 20

    /// The `segment:` lines of the record or mark at `path` as (first byte, count); empty when none.
    private func segments(_ path: String) -> [(first: Int, count: Int)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("segment: ") else { return nil }
            let parts = line.dropFirst("segment: ".count).split(separator: " ")
            guard parts.count == 2, let first = parts[0].split(separator: "-").first.flatMap({ Int($0) }),
                let count = Int(parts[1])
            else { return nil }
            return (first, count)
        }
    }

    private func scratchDirectory(_ name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("wire download --segments 4 fetches four ranges and saves the same bytes", .timeLimit(.scaledMinutes(1)))
    func fourSegments() async throws {
        let directory = try scratchDirectory("wire-segments")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let content = (0..<(8 * Self.mebibyte)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
        try await withFixtureServer { server in
            server.setFile("s.bin", contents: content, etag: "\"s1\"")
            let target = directory + "/s.bin"
            let run = try await WireProcess.run([
                "download", server.baseURL + "files/s.bin", "-o", target, "--segments", "4", "--segment-probe", "0",
                "--limit-rate", "100M",
            ])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: target))) == content)
            let ranges = server.requestLog.compactMap { $0.fields["Range"] }
            #expect(ranges.count >= 3)
            #expect(ranges.contains("bytes=2097152-4194303"))
        }
    }

    @Test(
        "wire --segments 4 killed with SIGKILL resumes every segment from its count when run again",
        .timeLimit(.scaledMinutes(2)))
    func killAndResumeSegments() async throws {
        let directory = try scratchDirectory("wire-segments-kill")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 16 * Self.mebibyte
        let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        try await withFixtureServer { server in
            server.setFile("k.bin", contents: content, etag: "\"k1\"")
            // Paced, 32 KiB every 20 ms per connection: a few seconds in all, so the kill lands mid-way.
            let url = server.baseURL + "files/k.bin?interval_ms=20&piece=32768"
            let target = directory + "/k.bin"
            let first = try await WireProcess.start(["download", url, "-o", target, "--segments", "4"])
            // The mark follows the writes within milliseconds; wait until several segments have bytes.
            let started = await eventually(within: .seconds(30).scaled) {
                segments(target + ".part.mark").filter { $0.count > 0 }.count >= 3
            }
            try #require(started, "three segments with bytes in the mark")
            first.send(SIGKILL)
            let killed = try await first.finish()
            #expect(killed.status == 128 + SIGKILL)
            let mark = segments(target + ".part.mark")
            let record = segments(target + ".part.resume")
            // What the next run may trust: the mark (same boot), else the record.
            let onDisk = mark.isEmpty ? record : mark
            let kept = onDisk.reduce(0) { $0 + $1.count }
            try #require(kept > 0)
            let before = server.requestLog.count

            let second = try await WireProcess.run(["download", url, "-o", target, "--segments", "4"])
            #expect(second.status == 0, "\(second.standardError)")
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: target))) == content)
            let resumed = server.requestLog.dropFirst(before)
            // Only Range requests, each starting where a segment's count ends (or inside a stolen part).
            #expect(resumed.allSatisfy { $0.fields["Range"] != nil })
            let starts = Set(
                resumed.compactMap { head -> Int? in
                    head.fields["Range"].flatMap { Int($0.dropFirst(6).prefix { $0 != "-" }) }
                })
            for segment in onDisk where segment.count > 0 {
                #expect(!starts.contains(segment.first), "segment at \(segment.first) was fetched again from its start")
            }
            let requested = resumed.compactMap { head -> Int? in
                guard let range = head.fields["Range"]?.dropFirst(6).split(separator: "-"), range.count == 2,
                    let low = Int(range[0]), let high = Int(range[1])
                else { return nil }
                return high - low + 1
            }
            #expect(requested.reduce(0, +) <= size - kept + size / 20, "asked for more than what was missing")
        }
    }

    @Test(
        "wire download -i LIST downloads every listed URL, and a second run fetches nothing",
        .timeLimit(.scaledMinutes(1)))
    func inputFile() async throws {
        let directory = try scratchDirectory("wire-input")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let list = directory + "/urls.txt"
            let text = "# two files\n\(server.baseURL)bytes/300000?seed=1\n\n  \(server.baseURL)bytes/200000?seed=2  \n"
            try text.write(toFile: list, atomically: true, encoding: .utf8)
            let first = try await WireProcess.run(["download", "-i", list, "--dir", directory, "--parallel", "2"])
            #expect(first.status == 0, "\(first.standardError)")
            let a = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/300000")))
            let b = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/200000")))
            #expect(a == GeneratedBytes.bytes(0..<300_000, seed: 1))
            #expect(b == GeneratedBytes.bytes(0..<200_000, seed: 2))
            let requests = server.requestLog.count
            let second = try await WireProcess.run(["download", "-i", list, "--dir", directory])
            #expect(second.status == 0, "\(second.standardError)")
            #expect(server.requestLog.count == requests, "a finished download was fetched again")
        }
    }

    @Test("wire download -i with a missing list exits 26, an empty one is a usage error", .timeLimit(.scaledMinutes(1)))
    func inputFileErrors() async throws {
        let directory = try scratchDirectory("wire-input-errors")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = try await WireProcess.run(["download", "-i", directory + "/none.txt", "--dir", directory])
        #expect(missing.status == 26)
        try "# nothing\n\n".write(toFile: directory + "/empty.txt", atomically: true, encoding: .utf8)
        let empty = try await WireProcess.run(["download", "-i", directory + "/empty.txt", "--dir", directory])
        #expect(empty.status == 2)
        #expect(empty.standardError.contains("lists no URL"))
    }
}

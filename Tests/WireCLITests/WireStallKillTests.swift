// WireStallKillTests: issue #15's report, replayed with a real second process. The server sends 300,000
// bytes of a 1,000,000-byte file (strong ETag, Accept-Ranges) and goes quiet; `wire download` is killed
// with SIGKILL during the silence. Every byte in the part file must be counted on disk, so the next run
// asks for `bytes=300000-` and finishes an identical file, instead of starting again from byte 0.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@Suite(.serialized) struct WireStallKillTests {
    static let size = 1_000_000
    static let stallPoint = 300_000

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// The count the fsynced record beside `target` states, or nil.
    private func committedBytes(_ target: String) -> Int? {
        guard let text = try? String(contentsOfFile: target + ".part.resume", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("committed-bytes: ") }
        return line.flatMap { Int($0.dropFirst("committed-bytes: ".count)) }
    }

    /// Waits until `condition` holds, for at most `bound` (scaled by TestTime); fails the test otherwise.
    private func waitUntil(_ what: String, within bound: Duration, _ condition: () -> Bool) async throws {
        try #require(await eventually(within: bound, condition), "\(what) did not happen within \(bound.scaled)")
    }

    @Test(
        "wire killed with SIGKILL while the stream is quiet resumes from the last byte on disk",
        .timeLimit(.scaledMinutes(1)))
    func stallThenKill() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-stall-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let url = server.baseURL + "stall/\(Self.size)?after=\(Self.stallPoint)"
            let target = directory + "/out.bin"
            let first = try await WireProcess.start(["download", url, "-o", target])
            try await waitUntil("300,000 bytes in the part file", within: .seconds(20)) {
                fileSize(target + ".part") >= Self.stallPoint
            }
            // The bound under test: the record follows the bytes once the stream is quiet (50 ms plus one
            // fdatasync); 5 s allows a loaded machine, and is still far below the 60 s stall.
            try await waitUntil("the record counting them", within: .seconds(5)) {
                committedBytes(target) == Self.stallPoint
            }
            first.send(SIGKILL)
            let killed = try await first.finish()
            #expect(killed.status == 128 + SIGKILL)
            #expect(committedBytes(target) == Self.stallPoint)

            let second = try await WireProcess.run(["download", url, "-o", target])
            #expect(second.status == 0, "\(second.standardError)")
            let last = try #require(server.requestLog.last)
            #expect(last.fields["Range"] == "bytes=\(Self.stallPoint)-")
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: target)))
            #expect(written == GeneratedBytes.bytes(0..<Int64(Self.size)))
        }
    }

    @Test(
        "wire killed at once after the bytes reached the file keeps them through the progress mark",
        .timeLimit(.scaledMinutes(1)))
    func killRightAfterWrite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-mark-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let url = server.baseURL + "stall/\(Self.size)?after=\(Self.stallPoint)"
            let target = directory + "/out.bin"
            let first = try await WireProcess.start(["download", url, "-o", target])
            // The mark follows a write within 5 ms: waiting for it (not for the flushed record) is the
            // kill a user makes a moment after the bytes arrived.
            try await waitUntil("the mark counting 300,000 bytes", within: .seconds(20)) {
                let mark = try? String(contentsOfFile: target + ".part.mark", encoding: .utf8)
                return mark?.contains("committed-bytes: \(Self.stallPoint)\n") == true
            }
            first.send(SIGKILL)
            _ = try await first.finish()
            // The mark as the Downloads article quotes it: the port shown as 8080, the boot identifier
            // this machine's.
            let mark = try String(contentsOfFile: target + ".part.mark", encoding: .utf8)
            let port = try #require(URL(string: server.baseURL)?.port)
            let bootID = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            #expect(
                mark.replacingOccurrences(of: "127.0.0.1:\(port)", with: "127.0.0.1:8080") == """
                    httpwire-resume 2
                    url: http://127.0.0.1:8080/stall/1000000?after=300000
                    etag: "bytes-1000000-0"
                    last-modified: Thu, 01 Jan 2026 00:00:00 GMT
                    expected-length: 1000000
                    committed-bytes: 300000
                    boot-id: \(bootID)
                    """)
            let second = try await WireProcess.run(["download", url, "-o", target])
            #expect(second.status == 0, "\(second.standardError)")
            #expect(server.requestLog.last?.fields["Range"] == "bytes=\(Self.stallPoint)-")
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: target)))
            #expect(written == GeneratedBytes.bytes(0..<Int64(Self.size)))
        }
    }
}

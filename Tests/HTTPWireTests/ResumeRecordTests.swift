import Foundation
import Testing

@testable import HTTPWire

@Suite struct ResumeRecordTests {
    static let sample = ResumeRecord(
        url: "https://example.test/big.iso", entityTag: "\"v7\"", lastModified: "Tue, 15 Nov 1994 08:12:31 GMT",
        expectedLength: 4_000_000, committedBytes: 1_048_576)

    @Test("encodes as readable key: value lines")
    func encodes() throws {
        let text = try Self.sample.encoded()
        #expect(
            text == """
                httpwire-resume 1
                url: https://example.test/big.iso
                etag: "v7"
                last-modified: Tue, 15 Nov 1994 08:12:31 GMT
                expected-length: 4000000
                committed-bytes: 1048576

                """)
    }

    @Test("round-trips full and minimal records")
    func roundTrips() throws {
        let minimal = ResumeRecord(
            url: "http://h/x", entityTag: nil, lastModified: nil, expectedLength: nil, committedBytes: 0)
        for record in [Self.sample, minimal] {
            #expect(try ResumeRecord(decoding: Array(record.encoded().utf8)) == record)
        }
        #expect(try !minimal.encoded().contains("etag"))
    }

    @Test(
        "refuses damaged records instead of trusting them",
        arguments: [
            "",
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 5",  // cut short: no final newline
            "httpwire-resume 2\nurl: http://h/\ncommitted-bytes: 5\n",  // another version
            "url: http://h/\ncommitted-bytes: 5\n",  // no header
            "httpwire-resume 1\ncommitted-bytes: 5\n",  // no url
            "httpwire-resume 1\nurl: http://h/\n",  // no committed-bytes
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: -5\n",
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 5x\n",
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 99999999999999999999\n",
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes:5\n",
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 5\ncommitted-bytes: 6\n",
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 5\ncolour: blue\n",
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 5\n\n",  // empty line
            "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 10\nexpected-length: 9\n",
            "httpwire-resume 1\nurl: http://h/\r\ncommitted-bytes: 5\n",  // CR in a value
            "httpwire-resume 1\nurl: \ncommitted-bytes: 5\n",
            "httpwire-resume 1\nurl: http://h/\netag: \"a\"\u{0}\ncommitted-bytes: 5\n",
        ])
    func refusesDamage(text: String) {
        #expect(throws: ResumeRecord.Damage.self) { try ResumeRecord(decoding: Array(text.utf8)) }
    }

    @Test("refuses invalid UTF-8 and oversized input")
    func refusesBinary() {
        var bytes = Array("httpwire-resume 1\nurl: http://h/".utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array("\ncommitted-bytes: 5\n".utf8)
        #expect(throws: ResumeRecord.Damage.self) { try ResumeRecord(decoding: bytes) }
        let huge = [UInt8](repeating: 0x61, count: 20_000) + [0x0A]
        #expect(throws: ResumeRecord.Damage.self) { try ResumeRecord(decoding: huge) }
    }

    @Test("refuses to encode values that could not be read back")
    func refusesBadEncoding() {
        var record = Self.sample
        record.entityTag = "\"a\"\r\nInjected: yes"
        #expect(throws: ResumeRecord.Damage.self) { try record.encoded() }
        record = Self.sample
        record.committedBytes = 5_000_000
        #expect(throws: ResumeRecord.Damage.self) { try record.encoded() }
    }

    @Test("names the part file and the record after the destination")
    func fileNames() {
        #expect(ResumeRecord.partialFilePath(forDestination: "/tmp/a.iso") == "/tmp/a.iso.part")
        #expect(ResumeRecord.recordPath(forDestination: "/tmp/a.iso") == "/tmp/a.iso.part.resume")
    }

    @Test("writes atomically, loads, replaces and removes records on disk")
    func files() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("big.iso.part.resume").path

        #expect(ResumeRecord.load(fromPath: path) == nil)
        try Self.sample.write(toPath: path)
        #expect(ResumeRecord.load(fromPath: path) == .valid(Self.sample))

        var updated = Self.sample
        updated.committedBytes = 2_000_000
        try updated.write(toPath: path)
        #expect(ResumeRecord.load(fromPath: path) == .valid(updated))
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))

        try Data("httpwire-resume 1\nurl: x\ncommitted".utf8).write(to: URL(fileURLWithPath: path))
        guard case .unusable = ResumeRecord.load(fromPath: path) else {
            Issue.record("a damaged record on disk was accepted")
            return
        }
        try ResumeRecord.remove(atPath: path)
        #expect(!FileManager.default.fileExists(atPath: path))
        try ResumeRecord.remove(atPath: path)  // already gone: not an error
    }

    @Test("reports a write into a missing directory as a local write failure")
    func writeFailure() {
        let path = "/nonexistent-\(UUID())/x.part.resume"
        #expect {
            try Self.sample.write(toPath: path)
        } throws: { error in
            guard case .localWriteFailed(_, let code) = error as? HTTPWireError else { return false }
            return code == ENOENT
        }
    }
}

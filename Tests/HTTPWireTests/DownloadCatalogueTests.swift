// DownloadCatalogueTests: the manager's catalogue reader is strict on untrusted input — a torn file, a
// foreign file, a repeated key or an unknown state is Damage with a reason, never a crash or lost items —
// and what the writer writes reads back the same.

import Foundation
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct DownloadCatalogueTests {
    static let sample = DownloadCatalogue(entries: [
        .init(id: 1, url: "https://example.test/a.iso", destination: "/data/a.iso", priority: 0, state: .queued),
        .init(id: 3, url: "https://example.test/b.bin", destination: "/data/b.bin", priority: -2, state: .paused),
        .init(
            id: 4, url: "http://h/c", destination: "/data/c", priority: 5, state: .completed, bytes: 12,
            sha256: String(repeating: "ab", count: 32)),
    ])

    @Test("encodes one block per item and reads it back")
    func roundTrips() throws {
        let text = try Self.sample.encoded()
        #expect(text.hasPrefix("httpwire-catalogue 1\nitem: 1\nurl: https://example.test/a.iso\n"))
        #expect(
            text.contains("item: 4\nurl: http://h/c\ndestination: /data/c\npriority: 5\nstate: completed\nbytes: 12\n"))
        #expect(try DownloadCatalogue(decoding: Array(text.utf8)) == Self.sample)
        #expect(try DownloadCatalogue(decoding: Array("httpwire-catalogue 1\n".utf8)).entries.isEmpty)
    }

    static let block = "item: 1\nurl: http://h/x\ndestination: /d/x\npriority: 0\nstate: queued\n"

    @Test(
        "refuses torn, foreign and inconsistent catalogues with a reason",
        arguments: [
            "",
            "httpwire-catalogue 1",  // no final newline
            "httpwire-catalogue 2\n",  // another version
            "{\"items\": []}\n",  // foreign
            "httpwire-catalogue 1\n" + block,  // cut short before end
            "httpwire-catalogue 1\n" + block + "en",  // torn mid-line
            "httpwire-catalogue 1\n" + block + "end\n" + block + "end\n",  // duplicate id
            "httpwire-catalogue 1\n" + block + "state: paused\nend\n",  // duplicate key
            "httpwire-catalogue 1\n" + block + "colour: blue\nend\n",  // unknown key
            "httpwire-catalogue 1\nitem: 1\nurl: http://h/x\ndestination: /d/x\npriority: 0\nstate: done\nend\n",
            "httpwire-catalogue 1\nitem: 1\nurl: http://h/x\ndestination: d/x\npriority: 0\nstate: queued\nend\n",
            "httpwire-catalogue 1\nitem: 1\nurl: http://h/x\ndestination: /d/x\npriority: x\nstate: queued\nend\n",
            "httpwire-catalogue 1\nitem: 1\nurl: http://h/x\ndestination: /d/x\nstate: queued\nend\n",  // no priority
            "httpwire-catalogue 1\nitem: 1\nurl: http://h/x\ndestination: /d/x\npriority: 0\nstate: completed\nend\n",
            "httpwire-catalogue 1\nitem: 0\nurl: http://h/x\ndestination: /d/x\npriority: 0\nstate: queued\nend\n",
            "httpwire-catalogue 1\nitem: 1\nurl: http://h/\u{1B}x\ndestination: /d/x\npriority: 0\nstate: queued\nend\n",
            "httpwire-catalogue 1\n\nitem: 1\n",
        ])
    func refusesDamage(text: String) {
        #expect(throws: DownloadCatalogue.Damage.self) { try DownloadCatalogue(decoding: Array(text.utf8)) }
    }

    @Test("refuses invalid UTF-8 and never traps on random bytes")
    func refusesBinary() {
        #expect(throws: DownloadCatalogue.Damage.self) {
            try DownloadCatalogue(decoding: Array("httpwire-catalogue 1\n".utf8) + [0xFF, 0x0A])
        }
        var generator = SplitMix(seed: 15)
        let valid = Array((try? Self.sample.encoded())?.utf8 ?? "".utf8)
        for _ in 0..<500 {
            var bytes = valid
            // Cut, flip or insert a few bytes: every result either decodes or is Damage.
            let position = Int(generator.next() % UInt64(bytes.count))
            switch generator.next() % 3 {
            case 0: bytes.removeSubrange(position...)
            case 1: bytes[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
            }
            _ = try? DownloadCatalogue(decoding: bytes)
        }
    }

    @Test("a torn catalogue on disk is localReadFailed(EBADMSG) and stays untouched", .timeLimit(.scaledMinutes(1)))
    func tornFile() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let path = scratch.file(DownloadCatalogue.fileName)
        let torn = Array("httpwire-catalogue 1\n\(Self.block)".utf8)
        try Data(torn).write(to: URL(fileURLWithPath: path))
        let client = HTTPClient()
        await #expect(throws: HTTPWireError.localReadFailed(path: path, errno: 74)) {
            _ = try await DownloadManager(client: client, catalogueDirectory: scratch.path)
        }
        await client.shutdown()
        #expect(await DownloadScratch.contents(path) == torn)
    }

    /// A tiny deterministic generator for the mutation loop.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}

// ContentDecoderTests: the gzip/deflate decoder on its own — Python-made fixtures (Fixtures/compression)
// fed whole, one byte at a time and in random splits; every truncation, a bad CRC, bytes after the end,
// bombs against both limits, several codings, and which heads get a decoder. No sockets.

import FixtureServer
import HTTPWireCodec
import Testing

@testable import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct ContentDecoderTests {
    /// `Fixtures/compression` at the repository root, found from this file's path.
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // this file, HTTPWireTests, Tests
        return parts.joined(separator: "/") + "/Fixtures/compression"
    }()

    /// The bytes of one fixture file (a few hundred bytes: read in place).
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: directory + "/" + name)))
    }

    /// How a body is cut into pieces before it reaches the decoder.
    enum Split: CaseIterable {
        case whole, oneByte, random

        /// `bytes` cut this way (random: pieces of 1–97 bytes from a fixed seed).
        func pieces(of bytes: [UInt8], seed: UInt64 = 7) -> [ArraySlice<UInt8>] {
            switch self {
            case .whole: return [bytes[...]]
            case .oneByte: return bytes.indices.map { bytes[$0..<$0 + 1] }
            case .random:
                var generator = SeededGenerator(state: seed)
                var result: [ArraySlice<UInt8>] = []
                var start = 0
                while start < bytes.count {
                    let end = min(bytes.count, start + Int.random(in: 1...97, using: &generator))
                    result.append(bytes[start..<end])
                    start = end
                }
                return result
            }
        }
    }

    /// A decoder for `Content-Encoding: coding`, as the client makes one.
    static func decoder(_ coding: String, settings: ContentDecoding = .on) throws -> ContentDecoder {
        var head = ResponseHead(
            version: .http1_1, status: .ok, reason: "OK", fields: ["Content-Encoding": coding, "Content-Length": "1"])
        return try #require(try ContentDecoder.make(for: &head, settings: settings))
    }

    /// `pieces` through a decoder for `coding`, finished; the decoded body or the error.
    static func decode(
        _ pieces: [ArraySlice<UInt8>], coding: String, settings: ContentDecoding = .on
    ) throws -> Result<[UInt8], HTTPWireError> {
        var decoder = try decoder(coding, settings: settings)
        var output: [UInt8] = []
        do {
            for piece in pieces { output += try decoder.decode(piece) }
            output += try decoder.finish()
            return .success(output)
        } catch let error as HTTPWireError {
            return .failure(error)
        }
    }

    static let fixtures: [(file: String, coding: String)] = [
        ("python-gzip.gz", "gzip"), ("python-zlib.zz", "deflate"), ("python-raw.deflate", "deflate"),
        ("python-members.gz", "gzip"), ("python-named.gz", "x-gzip"),
    ]

    @Test(
        "Python's gzip, zlib, raw deflate and two-member files decode to the text in every split",
        arguments: Split.allCases)
    func pythonFixtures(split: Split) throws {
        let plain = try Self.fixture("plain.txt")
        for (file, coding) in Self.fixtures {
            let encoded = try Self.fixture(file)
            #expect(try Self.decode(split.pieces(of: encoded), coding: coding) == .success(plain), "\(file)")
        }
    }

    @Test("random splits from many seeds all decode the same")
    func manySeeds() throws {
        let plain = try Self.fixture("plain.txt")
        let encoded = try Self.fixture("python-members.gz")
        for seed in 1...50 as ClosedRange<UInt64> {
            #expect(try Self.decode(Split.random.pieces(of: encoded, seed: seed), coding: "gzip") == .success(plain))
        }
    }

    @Test("every proper prefix of a gzip or zlib body is truncated, never a short body or a crash")
    func everyTruncation() throws {
        let plain = try Self.fixture("plain.txt")
        for (file, coding) in Self.fixtures {
            let encoded = try Self.fixture(file)
            var completeCuts: [Int] = []
            for length in 1..<encoded.count {
                switch try Self.decode([encoded[..<length]], coding: coding) {
                case .failure(.badContentEncoding(_, let failure)):
                    #expect(failure == .truncated, "\(file) cut at \(length): \(failure)")
                case .success(let decoded):
                    // Only a cut exactly between two gzip members is a complete body: the first member's text.
                    #expect(decoded == Array(plain.prefix(plain.count / 2)), "\(file) cut at \(length)")
                    completeCuts.append(length)
                case .failure(let other):
                    Issue.record("\(file) cut at \(length): \(other)")
                }
            }
            #expect(completeCuts.count == (file == "python-members.gz" ? 1 : 0), "\(file): \(completeCuts)")
        }
    }

    @Test("a damaged CRC-32, length or Adler-32 is corrupt, with zlib's words")
    func damagedChecksums() throws {
        let gzip = try Self.fixture("python-gzip.gz")
        var badCRC = gzip
        badCRC[gzip.count - 8] ^= 0x01
        #expect(
            try Self.decode([badCRC[...]], coding: "gzip")
                == .failure(.badContentEncoding(coding: "gzip", .corrupt("incorrect data check"))))
        var badLength = gzip
        badLength[gzip.count - 1] ^= 0x01
        #expect(
            try Self.decode([badLength[...]], coding: "gzip")
                == .failure(.badContentEncoding(coding: "gzip", .corrupt("incorrect length check"))))
        var badAdler = try Self.fixture("python-zlib.zz")
        badAdler[badAdler.count - 1] ^= 0x01
        #expect(
            try Self.decode([badAdler[...]], coding: "deflate")
                == .failure(.badContentEncoding(coding: "deflate", .corrupt("incorrect data check"))))
        let error = HTTPWireError.badContentEncoding(coding: "gzip", .corrupt("incorrect data check"))
        #expect(error.exitCode == 61)
        #expect(error.description == "bad content encoding (gzip): corrupt compressed data: incorrect data check")
    }

    @Test("bytes after the end: a gzip member must follow a gzip member; nothing may follow deflate")
    func trailingBytes() throws {
        let gzip = try Self.fixture("python-gzip.gz") + Array("garbage".utf8)
        guard case .failure(.badContentEncoding(_, .corrupt)) = try Self.decode([gzip[...]], coding: "gzip") else {
            Issue.record("garbage after gzip was accepted")
            return
        }
        let zlib = try Self.fixture("python-zlib.zz") + [0]
        #expect(
            try Self.decode([zlib[...]], coding: "deflate")
                == .failure(
                    .badContentEncoding(coding: "deflate", .corrupt("data after the end of the deflate stream"))))
    }

    @Test("an empty body with Content-Encoding decodes to nothing; one byte of deflate is truncated")
    func emptyAndOneByte() throws {
        #expect(try Self.decode([], coding: "gzip") == .success([]))
        #expect(
            try Self.decode([[0x78][...]], coding: "deflate")
                == .failure(.badContentEncoding(coding: "deflate", .truncated)))
    }

    @Test("a bomb stops at the ratio limit after the grace megabyte, or at the byte limit")
    func bombs() throws {
        // 64 MiB of zeros is about 64 KiB of gzip: a ratio near 1,000.
        let zeros = [UInt8](repeating: 0, count: 64 << 20)
        let bomb = try #require(CompressedRoutes.encoded(zeros, coding: "gzip")).body
        let pieces = Split.random.pieces(of: bomb)
        #expect(
            try Self.decode(pieces, coding: "gzip") == .failure(.badContentEncoding(coding: "gzip", .ratioLimit(100))))
        var lenient = ContentDecoding.on
        lenient.maxRatio = 10_000
        lenient.maxDecodedBytes = 8 << 20
        #expect(
            try Self.decode(pieces, coding: "gzip", settings: lenient)
                == .failure(.badContentEncoding(coding: "gzip", .decodedBytesLimit(8 << 20))))
        lenient.maxDecodedBytes = 64 << 20
        #expect(try Self.decode(pieces, coding: "gzip", settings: lenient).map(\.count) == .success(64 << 20))
    }

    @Test("the output of one piece never runs far past a limit: it is checked every 64 KiB")
    func boundedOutput() throws {
        let zeros = [UInt8](repeating: 0, count: 16 << 20)
        let bomb = try #require(CompressedRoutes.encoded(zeros, coding: "gzip")).body
        var settings = ContentDecoding.on
        settings.maxRatio = 1_000_000
        settings.maxDecodedBytes = 2 << 20
        var decoder = try Self.decoder("gzip", settings: settings)
        var decoded = 0
        #expect(throws: HTTPWireError.badContentEncoding(coding: "gzip", .decodedBytesLimit(2 << 20))) {
            for piece in Split.whole.pieces(of: bomb) { decoded += try decoder.decode(piece).count }
        }
        #expect(decoded == 0)
    }

    @Test("gzip, deflate is decoded deflate first, then gzip")
    func twoCodings() throws {
        let plain = CompressedRoutes.text(count: 20_000)
        let both = try #require(CompressedRoutes.encoded(plain, coding: "gzip,deflate"))
        #expect(both.label == "gzip, deflate")
        for split in Split.allCases {
            #expect(try Self.decode(split.pieces(of: both.body), coding: both.label) == .success(plain))
        }
    }

    @Test("which heads get a decoder, and what the caller's head loses")
    func heads() throws {
        func head(_ fields: HTTPFields, _ status: Status = .ok) -> ResponseHead {
            ResponseHead(version: .http1_1, status: status, reason: "", fields: fields)
        }
        var gzip = head(["Content-Encoding": "GZIP", "Content-Length": "20", "ETag": "\"a\""])
        #expect(try ContentDecoder.make(for: &gzip, settings: .on) != nil)
        #expect(gzip.fields == ["ETag": "\"a\""])
        // Off, unknown codings (alone or in the list), identity only, a 206: passed through untouched.
        for (settings, status, fields) in [
            (ContentDecoding.off, Status.ok, ["Content-Encoding": "gzip"] as HTTPFields),
            (.on, .ok, ["Content-Encoding": "br"]), (.on, .ok, ["Content-Encoding": "gzip, br"]),
            (.on, .ok, ["Content-Encoding": "zstd"]), (.on, .ok, ["Content-Encoding": "identity"]),
            (.on, .ok, [:]), (.on, Status(rawValue: 206), ["Content-Encoding": "gzip"]),
        ] {
            var untouched = head(fields, status)
            #expect(try ContentDecoder.make(for: &untouched, settings: settings) == nil, "\(fields)")
            #expect(untouched.fields == fields)
        }
        // Two field lines are one list (RFC 9110 §5.3); four codings are refused.
        var twoLines = head(["Content-Encoding": "gzip"])
        twoLines.fields.append(name: "Content-Encoding", value: "deflate")
        #expect(try ContentDecoder.make(for: &twoLines, settings: .on)?.codings == "gzip, deflate")
        var four = head(["Content-Encoding": "gzip, gzip, gzip, gzip"])
        #expect(throws: HTTPWireError.badContentEncoding(coding: "gzip, gzip, gzip, gzip", .tooManyCodings(4))) {
            _ = try ContentDecoder.make(for: &four, settings: .on)
        }
    }

    @Test("the zlib header test tells RFC 1950 from raw deflate for Python's files")
    func zlibHeader() throws {
        let zlib = try Self.fixture("python-zlib.zz")
        let raw = try Self.fixture("python-raw.deflate")
        #expect(InflateLayer.hasZlibHeader(zlib[0], zlib[1]))
        #expect(!InflateLayer.hasZlibHeader(raw[0], raw[1]))
    }
}

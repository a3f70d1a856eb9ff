// FixtureCorpusTests: every raw response in Fixtures/responses, through every FeedStrategy, against the catalog.
// Codec layer tests: bytes from files into a ResponseDecoder; no sockets, no clocks.
//
// The catalog (FixtureCatalog) holds the RFC's answer for each file; these tests decode each file whole, byte
// by byte, in seeded random splits and with a second response appended, and compare every run with that
// answer. A fixture whose end is only known when the stream closes (a body read until close, a truncated
// message) is not run with bytes appended: they would rightly become its body.

import HTTPWireCodec
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One fixture fed one way.
struct CorpusRun: Sendable, CustomTestStringConvertible {
    var expectation: FixtureExpectation
    var strategy: FeedStrategy
    var testDescription: String { "\(expectation.file), \(strategy.testDescription)" }
}

@Suite struct FixtureCorpusTests {
    /// Every catalogued fixture with every strategy that applies to it.
    static let runs: [CorpusRun] = FixtureCatalog.entries.flatMap { expectation in
        FeedStrategy.all.compactMap { strategy in
            strategy.appendsExtraBytes && !expectation.isSelfDelimiting
                ? nil : CorpusRun(expectation: expectation, strategy: strategy)
        }
    }

    /// The bytes of one fixture file.
    static func contents(of file: String) throws -> [UInt8] {
        let data = try #require(FileManager.default.contents(atPath: FixtureCatalog.directory + "/" + file))
        return [UInt8](data)
    }

    @Test("the corpus has at least 50 files and the catalog lists each exactly once")
    func catalogMatchesCorpus() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: FixtureCatalog.directory)
            .filter { $0.hasSuffix(".http") }
        let catalogued = FixtureCatalog.entries.map(\.file)
        #expect(files.count >= 50)
        #expect(Set(catalogued).count == catalogued.count, "a file is catalogued twice")
        #expect(Set(files).subtracting(catalogued).sorted() == [], "files without a catalog entry")
        #expect(Set(catalogued).subtracting(files).sorted() == [], "catalog entries without a file")
    }

    @Test("every framing rule of RFC 9112 §6.3 has a fixture")
    func everyFramingRuleIsCovered() {
        var framings: Set<BodyFraming> = []
        var errors: [CodecError] = []
        for expectation in FixtureCatalog.entries {
            switch expectation.outcome {
            case .response(let response): framings.insert(response.framing)
            case .failure(.exactly(let error)): errors.append(error)
            case .failure: break
            }
        }
        #expect(framings.contains(.none) && framings.contains(.chunked) && framings.contains(.untilClose))
        #expect(framings.contains { if case .contentLength = $0 { return true } else { return false } })
        #expect(FixtureCatalog.entries.contains { $0.method == .head })
        #expect(errors.contains(.contentLengthWithTransferEncoding))
        #expect(errors.contains { if case .conflictingContentLength = $0 { return true } else { return false } })
        #expect(errors.contains { if case .invalidContentLength = $0 { return true } else { return false } })
        #expect(errors.contains { if case .unsupportedTransferCoding = $0 { return true } else { return false } })
    }

    @Test("each fixture decodes as catalogued, whatever the split", arguments: runs)
    func decode(_ run: CorpusRun) throws {
        let message = try Self.contents(of: run.expectation.file)
        let transcript = DecoderTranscript.decode(run.strategy.pieces(of: message), answering: run.expectation.method)
        #expect(transcript.problems == [], "event protocol broken")
        switch run.expectation.outcome {
        case .response(let expected):
            try verify(transcript, decodes: expected, message: message, strategy: run.strategy)
        case .failure(let expected):
            let error = try #require(
                transcript.error,
                "decoded status \(String(describing: transcript.head?.status.rawValue)) instead of failing")
            #expect(expected.matches(error, checkPreview: run.strategy.isWhole), "got .\(error), expected \(expected)")
            #expect(transcript.trailers == nil, "a failed message must not end")
        }
    }

    @Test(
        "a fixture that fails, fails the same way whatever the split",
        arguments: FixtureCatalog.entries.filter { if case .failure = $0.outcome { return true } else { return false } }
    )
    func sameErrorForEverySplit(_ expectation: FixtureExpectation) throws {
        let message = try Self.contents(of: expectation.file)
        let whole = DecoderTranscript.decode([message[...]], answering: expectation.method)
        let wholeError = try #require(whole.error)
        for strategy in FeedStrategy.all where !strategy.appendsExtraBytes {
            let split = DecoderTranscript.decode(strategy.pieces(of: message), answering: expectation.method)
            #expect(
                split.error?.ignoringProgress == wholeError.ignoringProgress,
                "\(strategy.testDescription): \(String(describing: split.error)) vs whole: \(wholeError)")
        }
    }

    /// Compares a successful decode with its catalog entry.
    private func verify(
        _ transcript: DecoderTranscript, decodes expected: ExpectedResponse, message: [UInt8], strategy: FeedStrategy
    ) throws {
        if let error = transcript.error {
            Issue.record("failed with .\(error)")
            return
        }
        let head = try #require(transcript.head)
        #expect(head.version == expected.version)
        #expect(head.status.rawValue == expected.status)
        if let reason = expected.reason { #expect(head.reason == reason) }
        #expect(transcript.informational.map(\.status.rawValue) == expected.informational.map(\.status))
        for (interim, wanted) in zip(transcript.informational, expected.informational) {
            for check in wanted.fields {
                #expect(check.failure(in: interim.fields) == nil, "interim \(wanted.status)")
            }
        }
        for check in expected.fields { #expect(check.failure(in: head.fields) == nil) }
        #expect(transcript.framing == expected.framing)
        #expect(transcript.body.count == expected.bodyLength)
        #expect(DecoderTranscript.fnv1a64(transcript.body) == expected.bodyChecksum, "body checksum")
        let trailers = try #require(transcript.trailers, "no .end event")
        #expect(trailers.count == expected.trailerCount)
        for check in expected.trailers { #expect(check.failure(in: trailers) == nil, "trailer") }
        #expect(transcript.isKeepAlive == expected.isKeepAlive)
        #expect(transcript.isPaused)
        let after = Array(message.suffix(expected.bytesAfterMessage))
        let extra = strategy.appendsExtraBytes ? FeedStrategy.extraBytes : []
        #expect(transcript.unconsumed == after + extra, "bytes after the message must stay unconsumed")
    }
}

extension CodecError {
    /// The error without the parts that depend on how many bytes had arrived when it was found: previews of
    /// the offending bytes and the size seen when a limit tripped. Everything else must not depend on the split.
    var ignoringProgress: CodecError {
        switch self {
        case .invalidStatusLine: return .invalidStatusLine(preview: "")
        case .invalidRequestLine: return .invalidRequestLine(preview: "")
        case .unsupportedVersion: return .unsupportedVersion(preview: "")
        case .invalidFieldLine: return .invalidFieldLine(preview: "")
        case .invalidChunkSize: return .invalidChunkSize(preview: "")
        case .chunkSizeOverflow: return .chunkSizeOverflow(preview: "")
        case .missingChunkTerminator: return .missingChunkTerminator(preview: "")
        case .headTooLarge(let limit, _): return .headTooLarge(limit: limit, seen: 0)
        case .chunkLineTooLong(let limit, _): return .chunkLineTooLong(limit: limit, seen: 0)
        case .trailersTooLarge(let limit, _): return .trailersTooLarge(limit: limit, seen: 0)
        case .invalidFieldName, .invalidFieldValue, .invalidMethod, .invalidURL, .bareCarriageReturn,
            .unexpectedUpgrade, .tooManyFields, .truncatedHead, .invalidContentLength, .conflictingContentLength,
            .contentLengthWithTransferEncoding, .unsupportedTransferCoding, .truncatedBody,
            .framingFieldNotAllowed, .invalidRange, .invalidContentRange, .tooManyInformationalResponses:
            return self
        }
    }
}

// FixtureExpectation: what one raw response file in Fixtures/responses must decode to.
// Test support for the codec layer: plain values and the checks that compare them with a decoder's run.
//
// A fixture either decodes to a response (status, chosen fields, body length and FNV-1a 64 checksum,
// trailers, interim responses, keep-alive) or fails with one CodecError. Errors whose text depends on how far
// the decoder had read (previews of offending bytes, the byte count when a limit tripped) are matched by case
// plus the part that does not depend on the split; everything else is matched exactly.

import HTTPWireCodec
import Testing

/// The expected outcome of decoding one fixture file.
struct FixtureExpectation: Sendable, CustomTestStringConvertible {
    /// The file name inside `Fixtures/responses`.
    var file: String
    /// The request method the response answers: a response to HEAD has no body (RFC 9112 §6.3 rule 1).
    var method: Method
    /// A decoded response or an error.
    var outcome: Outcome

    /// Success or failure of the decode.
    enum Outcome: Sendable {
        case response(ExpectedResponse)
        case failure(ExpectedError)
    }

    var testDescription: String { "\(file) (\(method))" }

    /// True when the message ends by its own framing, so bytes appended after it must stay unread: a body read
    /// until close, or an error that only the end of the stream reveals, would swallow or change with them.
    var isSelfDelimiting: Bool {
        switch outcome {
        case .response(let response): return response.framing != .untilClose
        case .failure(.exactly(.truncatedHead)), .failure(.exactly(.truncatedBody)): return false
        case .failure: return true
        }
    }
}

/// A successfully decoded response.
struct ExpectedResponse: Sendable {
    var version: HTTPVersion = .http1_1
    var status: Int
    /// The reason phrase, when the fixture is about it.
    var reason: String? = nil
    /// Interim (1xx) heads delivered before the final head, in order.
    var informational: [ExpectedInterim] = []
    var fields: [FieldCheck] = []
    var framing: BodyFraming
    var bodyLength: Int
    /// FNV-1a 64 of the body bytes (`make-fixtures.py --summary` prints it).
    var bodyChecksum: UInt64
    var trailers: [FieldCheck] = []
    /// How many trailer fields arrive with `.end` (only a chunked body has any).
    var trailerCount: Int = 0
    var isKeepAlive: Bool
    /// Bytes of the file that follow this message; they must be left in `unconsumedBytes`.
    var bytesAfterMessage: Int = 0
}

/// An interim response expected before the final one.
struct ExpectedInterim: Sendable {
    var status: Int
    var fields: [FieldCheck] = []
}

/// One question asked of a decoded field section.
enum FieldCheck: Sendable, CustomStringConvertible {
    /// The first field called `name` (any case) has this value.
    case value(String, String)
    /// Every field called `name`, in order, has these values.
    case values(String, [String])
    /// A field of this name exists, spelled exactly like this (the decoder keeps the case it received).
    case spelled(String)
    /// No field of this name.
    case absent(String)

    /// Nil when `fields` passes the check, otherwise what went wrong.
    func failure(in fields: HTTPFields) -> String? {
        switch self {
        case .value(let name, let value):
            return fields[name] == value
                ? nil : "\(name): expected \"\(value)\", got \(String(describing: fields[name]))"
        case .values(let name, let values):
            let seen = fields.values(for: name)
            return seen == values ? nil : "\(name): expected \(values), got \(seen)"
        case .spelled(let name):
            return fields.contains { $0.name == name } ? nil : "no field spelled \"\(name)\" in \(fields.map(\.name))"
        case .absent(let name):
            return fields.contains(name) ? "\(name) should be absent" : nil
        }
    }

    var description: String {
        switch self {
        case .value(let name, let value): return "\(name) = \(value)"
        case .values(let name, let values): return "\(name) = \(values)"
        case .spelled(let name): return "spelled \(name)"
        case .absent(let name): return "no \(name)"
        }
    }
}

/// The error a fixture must fail with.
enum ExpectedError: Sendable, CustomStringConvertible {
    /// Exactly this error, associated values included.
    case exactly(CodecError)
    /// `invalidStatusLine` whose preview (of the whole input) starts with this escaped text.
    case invalidStatusLine(previewPrefix: String)
    /// `unsupportedVersion` whose preview contains this text.
    case unsupportedVersion(previewContaining: String)
    /// `invalidFieldLine` whose preview contains this text.
    case invalidFieldLine(previewContaining: String)
    /// `invalidChunkSize` whose preview contains this text.
    case invalidChunkSize(previewContaining: String)
    /// `chunkSizeOverflow` whose preview contains this text.
    case chunkSizeOverflow(previewContaining: String)
    /// `missingChunkTerminator` with any preview.
    case missingChunkTerminator
    /// `headTooLarge` naming this limit and a size past it.
    case headTooLarge(limit: Int)
    /// `chunkLineTooLong` naming this limit and a size past it.
    case chunkLineTooLong(limit: Int)
    /// `trailersTooLarge` naming this limit and a size past it.
    case trailersTooLarge(limit: Int)

    /// True when `error` is the expected one. Previews are only compared when the decoder saw the whole
    /// input at once (`checkPreview`): with other splits it may rightly have decided on fewer bytes.
    func matches(_ error: CodecError, checkPreview: Bool) -> Bool {
        switch (self, error) {
        case (.exactly(let expected), _):
            return expected == error
        case (.invalidStatusLine(let prefix), .invalidStatusLine(let preview)):
            return !checkPreview || preview.hasPrefix(prefix)
        case (.unsupportedVersion(let text), .unsupportedVersion(let preview)),
            (.invalidFieldLine(let text), .invalidFieldLine(let preview)),
            (.invalidChunkSize(let text), .invalidChunkSize(let preview)),
            (.chunkSizeOverflow(let text), .chunkSizeOverflow(let preview)):
            return !checkPreview || preview.contains(text)
        case (.missingChunkTerminator, .missingChunkTerminator):
            return true
        case (.headTooLarge(let expected), .headTooLarge(let limit, let seen)),
            (.chunkLineTooLong(let expected), .chunkLineTooLong(let limit, let seen)),
            (.trailersTooLarge(let expected), .trailersTooLarge(let limit, let seen)):
            return limit == expected && seen > limit
        default:
            return false
        }
    }

    var description: String {
        switch self {
        case .exactly(let error): return "exactly .\(error)"
        case .invalidStatusLine(let prefix): return "invalidStatusLine starting \"\(prefix)\""
        case .unsupportedVersion(let text): return "unsupportedVersion containing \"\(text)\""
        case .invalidFieldLine(let text): return "invalidFieldLine containing \"\(text)\""
        case .invalidChunkSize(let text): return "invalidChunkSize containing \"\(text)\""
        case .chunkSizeOverflow(let text): return "chunkSizeOverflow containing \"\(text)\""
        case .missingChunkTerminator: return "missingChunkTerminator"
        case .headTooLarge(let limit): return "headTooLarge(limit: \(limit))"
        case .chunkLineTooLong(let limit): return "chunkLineTooLong(limit: \(limit))"
        case .trailersTooLarge(let limit): return "trailersTooLarge(limit: \(limit))"
        }
    }
}

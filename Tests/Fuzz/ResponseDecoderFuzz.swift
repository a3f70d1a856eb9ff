// ResponseDecoderFuzz: the libFuzzer entry point for the response decoder.
// Test tooling for the codec layer. Not a SwiftPM target: Tests/Fuzz/run-fuzz.sh compiles this file together
// with Sources/HTTPWireCodec/*.swift into one module, so the codec's types are used without an import.
//
// Each input is a byte stream a server might send. It is decoded three times per method (GET, and HEAD, whose
// response has no body): whole, one byte at a time (1-8 byte pieces past 2 KiB), and in pieces whose lengths
// come from a hash of the input.
// Besides "no crash, no sanitizer report", the three runs must agree — same heads, same body bytes, same
// trailers, same keep-alive answer, same error case — because a decoder that depends on how the network split
// its input is a decoder an attacker can steer. A decoder that still wants data after the end of the stream, or
// that loses or invents bytes, is a failure too. Every failure found becomes a fixture in Fixtures/responses.

import Glibc

/// What one decode produced, in a form that does not depend on how the input was split.
struct FuzzOutcome: Equatable {
    /// Heads, ends and pauses in order; body bytes are joined in `body`.
    var steps: [FuzzStep] = []
    var body: [UInt8] = []
    /// The error case with its split-dependent parts (previews, sizes seen) blanked.
    var error: CodecError?
    var unconsumed: [UInt8] = []
    /// Set when the decoder broke its own event protocol; compared too, and checked on its own.
    var violation: String?
}

/// A non-body event of a decode.
enum FuzzStep: Equatable {
    case informational(ResponseHead)
    case head(ResponseHead, BodyFraming?)
    case end(trailers: HTTPFields, isKeepAlive: Bool)
    case paused
}

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let hash = ResponseDecoderFuzz.fnv1a64(input)
    // One input in four runs with small limits, so head, field, chunk-line and trailer limits trip within
    // inputs of a few KiB.
    var limits = CodecLimits()
    if hash & 3 == 0 {
        limits.maxHeadBytes = 512
        limits.maxFieldCount = 8
        limits.maxChunkLineBytes = 24
        limits.maxTrailerBytes = 64
    }
    for method in [Method.get, Method.head] {
        let whole = ResponseDecoderFuzz.decode([input[...]], method: method, limits: limits)
        ResponseDecoderFuzz.check(whole, input: input, method: method, how: "whole")
        // One byte per feed for inputs up to 2 KiB; longer ones in 1-8 byte pieces, which keeps a run fast
        // enough for the fuzzer while every line still arrives in several feeds.
        let fine =
            input.count <= 2048
            ? input.indices.map { input[$0..<$0 + 1] }
            : ResponseDecoderFuzz.pieces(of: input, seed: ~hash, maxPiece: 8)
        let byByte = ResponseDecoderFuzz.decode(fine, method: method, limits: limits)
        ResponseDecoderFuzz.check(byByte, input: input, method: method, how: "byte by byte")
        let split = ResponseDecoderFuzz.decode(
            ResponseDecoderFuzz.pieces(of: input, seed: hash, maxPiece: 64), method: method, limits: limits)
        ResponseDecoderFuzz.check(split, input: input, method: method, how: "hashed split")
        if whole != byByte || whole != split {
            ResponseDecoderFuzz.fail(
                "\(method): splits disagree\n whole: \(whole)\n bytes: \(byByte)\n split: \(split)")
        }
    }
    return 0
}

/// The decode runs and checks behind the entry point.
enum ResponseDecoderFuzz {
    /// Runs one decode to its end: paused, an error, or the end of the stream.
    static func decode(_ pieces: [ArraySlice<UInt8>], method: Method, limits: CodecLimits) -> FuzzOutcome {
        var decoder = ResponseDecoder(limits: limits)
        decoder.expectResponse(to: method)
        var outcome = FuzzOutcome()
        var isDone = false
        for piece in pieces + [[]] {  // the empty piece is the end of the stream
            decoder.feed(piece)
            if isDone { continue }
            isDone = drain(&decoder, into: &outcome)
            if piece.isEmpty && !isDone { outcome.violation = "needMoreData after the end of the stream" }
        }
        if outcome.steps.last == .paused { outcome.unconsumed = Array(decoder.unconsumedBytes) }
        return outcome
    }

    /// Asks for events until more data is needed (false) or the decode is over (true).
    static func drain(_ decoder: inout ResponseDecoder, into outcome: inout FuzzOutcome) -> Bool {
        for _ in 0..<1_000_000 {
            let event: ResponseEvent
            do throws(CodecError) {
                event = try decoder.nextEvent()
            } catch {
                outcome.error = progressFree(error)
                return true
            }
            switch event {
            case .informational(let head): outcome.steps.append(.informational(head))
            case .head(let head): outcome.steps.append(.head(head, decoder.framing))
            case .body(let bytes): outcome.body.append(contentsOf: bytes)
            case .end(let trailers): outcome.steps.append(.end(trailers: trailers, isKeepAlive: decoder.isKeepAlive))
            case .needMoreData: return false
            case .paused:
                outcome.steps.append(.paused)
                return true
            }
        }
        outcome.violation = "a million events from one feed"
        return true
    }

    /// Properties every decode must have, whatever the split.
    static func check(_ outcome: FuzzOutcome, input: [UInt8], method: Method, how: String) {
        if let violation = outcome.violation { fail("\(method) \(how): \(violation)") }
        if outcome.body.count > input.count { fail("\(method) \(how): more body bytes than input bytes") }
        guard outcome.steps.last == .paused else { return }
        // The message ended: what is left over is exactly the input's tail, and the body fits before it.
        if outcome.unconsumed.count + outcome.body.count > input.count
            || !Self.bytes(input, endWith: outcome.unconsumed)
        {
            fail("\(method) \(how): unconsumed bytes are not the tail of the input")
        }
        for step in outcome.steps {
            guard case .head(let head, let framing) = step else { continue }
            if method == .head && !outcome.body.isEmpty { fail("\(method) \(how): a body for HEAD") }
            if head.status.rawValue == 204 || head.status.rawValue == 304, !outcome.body.isEmpty {
                fail("\(method) \(how): a body for \(head.status.rawValue)")
            }
            if case .contentLength(let length)? = framing, method != .head, length != outcome.body.count {
                fail("\(method) \(how): Content-Length \(length) but \(outcome.body.count) body bytes")
            }
        }
    }

    /// The error without previews and sizes seen, which legitimately depend on the split.
    static func progressFree(_ error: CodecError) -> CodecError {
        switch error {
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
        default: return error
        }
    }

    /// Pieces of 1 to `maxPiece` bytes, lengths drawn from `seed` (an xorshift generator: deterministic per input).
    static func pieces(of input: [UInt8], seed: UInt64, maxPiece: UInt64) -> [ArraySlice<UInt8>] {
        var state = seed | 1
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        while start < input.count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let end = min(input.count, start + 1 + Int(state % maxPiece))
            result.append(input[start..<end])
            start = end
        }
        return result
    }

    /// FNV-1a 64 of the input: seeds the split and picks the limits.
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// Prints why and traps, so libFuzzer saves the input as a crash.
    static func fail(_ message: String) -> Never {
        fputs("ResponseDecoderFuzz: \(message)\n", stderr)
        abort()
    }

    /// True when `bytes` ends with `suffix`.
    static func bytes(_ bytes: [UInt8], endWith suffix: [UInt8]) -> Bool {
        suffix.count <= bytes.count && bytes[(bytes.count - suffix.count)...].elementsEqual(suffix)
    }
}

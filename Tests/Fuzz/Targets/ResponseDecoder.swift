// ResponseDecoder: the libFuzzer target for the client's response decoder (RFC 9112 §4–§7).
// Test tooling for the codec layer, built by Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// Each input is a byte stream a server might send on one connection. It is decoded as the answers to a
// short sequence of requests (GET, HEAD, CONNECT or POST: the method decides whether a body may follow),
// continuing on the same decoder after each response as long as the connection stays reusable. It is
// decoded twice: whole, and split byte by byte or in random pieces seeded by the input (see `runs`).
// Besides "no crash, no sanitizer report", the two runs must agree on every head, body byte, trailer,
// keep-alive verdict and error case, because a decoder that depends on how the network split its input is
// one an attacker can steer. Each run is checked on its own too: no body for HEAD, 204 or 304, exactly
// Content-Length bytes, unread bytes are the input's tail, no reuse after a body that ran until close.
// A failure found here becomes a fixture in Fixtures/responses (make-fixtures.py) with its catalog entry.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/responses
// fuzz-max-len: 1024

import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let hash = input.hash
    let limits = ResponseDecoderFuzz.limits(hash)
    for (methods, split) in ResponseDecoderFuzz.runs(input.bytes.count, hash) {
        let whole = ResponseDecoderFuzz.decode(input.bytes, .whole, methods: methods, limits: limits)
        ResponseDecoderFuzz.check(whole, input: input.bytes, limits: limits, split: .whole)
        let outcome = ResponseDecoderFuzz.decode(input.bytes, split, methods: methods, limits: limits)
        ResponseDecoderFuzz.check(outcome, input: input.bytes, limits: limits, split: split)
        FuzzCheck.expect(
            outcome == whole, "\(methods): \(split) disagrees with whole\n whole: \(whole)\n \(split): \(outcome)")
    }
    return 0
}

/// One response of a decode: everything the events said about it.
struct DecodedResponse: Equatable {
    /// The method of the request this answers.
    var method: Method
    var interim: [ResponseHead] = []
    var head: ResponseHead?
    var framing: BodyFraming?
    /// Body bytes joined, whatever slices they came in.
    var body: [UInt8] = []
    /// Set by `.end`: the response is complete.
    var trailers: HTTPFields?
    var isKeepAlive = false
}

/// What one decode of an input produced, in a form that does not depend on the split.
struct ResponseDecodeOutcome: Equatable {
    var responses: [DecodedResponse] = []
    /// The error case, split-dependent parts blanked.
    var error: CodecError?
    /// The bytes left after the last response, when the decode stopped without an error.
    var unconsumed: [UInt8] = []
    /// Set when the decoder broke its own event protocol.
    var violation: String?
}

/// The decode runs and checks behind the entry point.
enum ResponseDecoderFuzz {
    /// One input in four runs with small limits, so the head, field, chunk-line, trailer and interim limits
    /// trip within inputs of a few hundred bytes.
    static func limits(_ hash: UInt64) -> CodecLimits {
        var limits = CodecLimits()
        if hash & 3 == 0 {
            limits.maxHeadBytes = 512
            limits.maxFieldCount = 8
            limits.maxChunkLineBytes = 24
            limits.maxTrailerBytes = 64
            limits.maxInformationalResponses = 2
        }
        return limits
    }

    /// The decode compared with a whole decode: a request sequence and a split, both chosen by the input.
    /// One sequence starts with GET (bodies), the other with HEAD (none) followed by CONNECT (a 2xx is a
    /// tunnel) or POST. The split is fine — byte by byte up to 256 bytes, 1–8 bytes beyond (a boundary then
    /// falls between two given bytes with odds of one in 4.5) — or coarse, 1–64 bytes. Fed one byte at a time
    /// the decoder costs about 0.9 µs a byte here; decoding every input in both sequences and both splits
    /// kept the target near 4,500 executions a CPU second, and one of each keeps it near 7,000, while a
    /// mutation of an input meets the other sequence and split half the time.
    static func runs(_ count: Int, _ hash: UInt64) -> [(methods: [Method], split: Split)] {
        let fine = count <= 256 ? Split.byteByByte : .random(seed: hash, maxPiece: 8)
        let coarse = Split.random(seed: ~hash, maxPiece: 64)
        let getFirst: [Method] = [.get, .get, .head]
        let headFirst: [Method] = [.head, hash & 4 == 0 ? .connect : .post, .get]
        return [(hash & 8 == 0 ? getFirst : headFirst, hash & 16 == 0 ? fine : coarse)]
    }

    /// Decodes `input` cut as `split`: the answer to each method in turn, until an error, a response after
    /// which the connection cannot be reused, or the last method.
    static func decode(_ input: [UInt8], _ split: Split, methods: [Method], limits: CodecLimits)
        -> ResponseDecodeOutcome
    {
        var decoder = ResponseDecoder(limits: limits)
        var outcome = ResponseDecodeOutcome()
        decoder.expectResponse(to: methods[0])
        outcome.responses.append(DecodedResponse(method: methods[0]))
        var pieces = Pieces(input[...], split)
        var isDone = false
        while !isDone, let piece = pieces.next() {
            decoder.feed(piece)
            isDone = drain(&decoder, into: &outcome, methods: methods)
        }
        if isDone {
            // The rest is never read: feed it in one piece, it must stay unconsumed.
            let rest = pieces.rest()
            if !rest.isEmpty { decoder.feed(rest) }
        } else {
            decoder.feed([])  // the end of the stream
            if !drain(&decoder, into: &outcome, methods: methods) {
                outcome.violation = "needMoreData after the end of the stream"
            }
        }
        if outcome.error == nil { outcome.unconsumed = Array(decoder.unconsumedBytes) }
        return outcome
    }

    /// Asks for events until more data is needed (false) or the decode is over (true).
    static func drain(
        _ decoder: inout ResponseDecoder, into outcome: inout ResponseDecodeOutcome, methods: [Method]
    ) -> Bool {
        for _ in 0..<100_000 {
            let event: ResponseEvent
            do throws(CodecError) {
                event = try decoder.nextEvent()
            } catch {
                outcome.error = error.splitFree
                return true
            }
            let current = outcome.responses.count - 1
            switch event {
            case .informational(let head): outcome.responses[current].interim.append(head)
            case .head(let head):
                outcome.responses[current].head = head
                outcome.responses[current].framing = decoder.framing
            case .body(let bytes):
                if bytes.isEmpty { outcome.violation = "an empty body event" }
                outcome.responses[current].body.append(contentsOf: bytes)
            case .end(let trailers):
                outcome.responses[current].trailers = trailers
                outcome.responses[current].isKeepAlive = decoder.isKeepAlive
            case .needMoreData: return false
            case .paused:
                // A client reuses the connection only when the codec says so (and it has a next request).
                guard decoder.isKeepAlive, outcome.responses.count < methods.count else { return true }
                let method = methods[outcome.responses.count]
                decoder.expectResponse(to: method)
                outcome.responses.append(DecodedResponse(method: method))
            }
        }
        outcome.violation = "100,000 events from one feed"
        return true
    }

    /// Properties every decode must have, whatever the split.
    static func check(_ outcome: ResponseDecodeOutcome, input: [UInt8], limits: CodecLimits, split: Split) {
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            FuzzCheck.expect(condition, "\(split): \(message())\n \(outcome)")
        }
        expect(outcome.violation == nil, outcome.violation ?? "")
        var bodyBytes = 0
        for (index, response) in outcome.responses.enumerated() {
            bodyBytes += response.body.count
            expect(response.interim.count <= limits.maxInformationalResponses, "too many interim responses")
            for interim in response.interim {
                expect(interim.status.isInformational && interim.status.rawValue != 101, "interim \(interim.status)")
                if let problem = FieldCheck.problem(in: interim.fields) { expect(false, problem) }
            }
            if index > 0 {
                let previous = outcome.responses[index - 1]
                expect(
                    previous.trailers != nil && previous.isKeepAlive, "a response after one that ended the connection")
            }
            guard let head = response.head else {
                expect(response.body.isEmpty && response.trailers == nil, "body or end before the head")
                continue
            }
            expect(!head.status.isInformational, "a final head with status \(head.status)")
            if let problem = FieldCheck.problem(in: head.fields) { expect(false, problem) }
            // RFC 9112 §4: the reason is kept for display; it never holds the bytes that end or cut a line.
            expect(!head.reason.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }), "reason \(head.reason)")
            let isBodiless =
                response.method == .head || head.status.rawValue == 204 || head.status.rawValue == 304
                || (response.method == .connect && head.status.kind == .successful)
            if isBodiless { expect(response.framing == BodyFraming.none, "\(response.method) \(head.status) framed") }
            switch response.framing {
            case .contentLength(let length)?:
                let isComplete = response.trailers != nil
                expect(
                    isComplete ? response.body.count == length : response.body.count < length,
                    "Content-Length \(length) but \(response.body.count) body bytes")
            case .none?: expect(response.body.isEmpty, "a body without framing")
            case .chunked?, .untilClose?, nil: break
            }
            if let trailers = response.trailers {
                expect(trailers.isEmpty || response.framing == .chunked, "trailers without chunked coding")
                if let problem = FieldCheck.problem(in: trailers) { expect(false, "trailer: \(problem)") }
                expect(response.framing != .untilClose || !response.isKeepAlive, "reuse after a body until close")
            }
        }
        expect(bodyBytes <= input.count, "more body bytes than input bytes")
        guard outcome.error == nil else { return }
        // The decode stopped on a complete response: what is left is the input's tail, after the bodies.
        expect(outcome.responses.last?.trailers != nil, "stopped without an error or a complete response")
        expect(outcome.unconsumed.count + bodyBytes <= input.count, "unconsumed and body bytes exceed the input")
        let tail = input.suffix(outcome.unconsumed.count)
        expect(FuzzInput.same(tail, outcome.unconsumed[...]), "unconsumed bytes are not the tail of the input")
    }
}

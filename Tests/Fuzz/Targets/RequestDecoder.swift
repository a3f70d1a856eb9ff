// RequestDecoder: the libFuzzer target for the server side's request decoder (RFC 9112 §2–§7).
// Test tooling for the codec layer, built by Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// Each input is a byte stream a client might send on one connection: up to three pipelined requests, read
// while the connection stays reusable. Every input is decoded whole and in pieces (byte by byte or 1–8
// bytes, or 1–64 bytes: see ResponseDecoder.swift), and the runs must agree on every head, body byte,
// trailer, keep-alive verdict and error case: a server whose idea of where a request ends depends on the
// network's split is a server a smuggler can steer. Each run is checked on its own too: a request body is
// never read until close, Content-Length bytes exactly, unread bytes are the input's tail, the method is a
// token and the target visible ASCII. A head it accepts must also survive the client's RequestEncoder:
// encoded again (framing fields left to the encoder) and decoded, it is the same head with the same framing.
// A failure found here becomes a seed in Fixtures/fuzz/RequestDecoder (Fixtures/fuzz/make-seeds.py).
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/RequestDecoder
// fuzz-max-len: 1024

@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let hash = input.hash
    let limits = RequestDecoderFuzz.limits(hash)
    let whole = RequestDecoderFuzz.decode(input.bytes, .whole, limits: limits)
    RequestDecoderFuzz.check(whole, input: input.bytes, limits: limits, split: .whole)
    // One split per input, as in ResponseDecoder.swift: fine (byte by byte up to 256 bytes, 1–8 bytes
    // beyond) or coarse (1–64 bytes), chosen by the input.
    let fine = input.bytes.count <= 256 ? Split.byteByByte : .random(seed: hash, maxPiece: 8)
    let split = hash & 16 == 0 ? fine : .random(seed: ~hash, maxPiece: 64)
    let outcome = RequestDecoderFuzz.decode(input.bytes, split, limits: limits)
    RequestDecoderFuzz.check(outcome, input: input.bytes, limits: limits, split: split)
    FuzzCheck.expect(outcome == whole, "\(split) disagrees with whole\n whole: \(whole)\n \(split): \(outcome)")
    for request in whole.requests { RequestDecoderFuzz.checkReencoding(request, limits: limits) }
    return 0
}

/// One request of a decode: everything the events said about it.
struct DecodedRequest: Equatable {
    var head: RequestHead?
    var framing: BodyFraming?
    /// Body bytes joined, whatever slices they came in.
    var body: [UInt8] = []
    /// Set by `.end`: the request is complete.
    var trailers: HTTPFields?
    var isKeepAlive = false
}

/// What one decode of an input produced, in a form that does not depend on the split.
struct RequestDecodeOutcome: Equatable {
    var requests: [DecodedRequest] = []
    /// The error case, split-dependent parts blanked.
    var error: CodecError?
    /// The bytes left after the last request, when the decode stopped without an error.
    var unconsumed: [UInt8] = []
    /// Set when the decoder broke its own event protocol.
    var violation: String?
}

/// The decode runs and checks behind the entry point.
enum RequestDecoderFuzz {
    /// Requests a server reads from one connection before the target stops.
    static let maxRequests = 3

    /// One input in four runs with small limits, so the head, field, chunk-line and trailer limits trip
    /// within inputs of a few hundred bytes.
    static func limits(_ hash: UInt64) -> CodecLimits {
        var limits = CodecLimits()
        if hash & 3 == 0 {
            limits.maxHeadBytes = 512
            limits.maxFieldCount = 8
            limits.maxChunkLineBytes = 24
            limits.maxTrailerBytes = 64
        }
        return limits
    }

    /// Decodes `input` cut as `split`: requests in turn until an error, a request after which the
    /// connection cannot be reused, or `maxRequests`.
    static func decode(_ input: [UInt8], _ split: Split, limits: CodecLimits) -> RequestDecodeOutcome {
        var decoder = RequestDecoder(limits: limits)
        var outcome = RequestDecodeOutcome()
        outcome.requests.append(DecodedRequest())
        var pieces = Pieces(input[...], split)
        var isDone = false
        while !isDone, let piece = pieces.next() {
            decoder.feed(piece)
            isDone = drain(&decoder, into: &outcome)
        }
        if isDone {
            // The rest is never read: feed it in one piece, it must stay unconsumed.
            let rest = pieces.rest()
            if !rest.isEmpty { decoder.feed(rest) }
        } else {
            decoder.feed([])  // the end of the stream
            if !drain(&decoder, into: &outcome) { outcome.violation = "needMoreData after the end of the stream" }
        }
        if outcome.error == nil { outcome.unconsumed = Array(decoder.unconsumedBytes) }
        return outcome
    }

    /// Asks for events until more data is needed (false) or the decode is over (true).
    static func drain(_ decoder: inout RequestDecoder, into outcome: inout RequestDecodeOutcome) -> Bool {
        for _ in 0..<100_000 {
            let event: RequestEvent
            do throws(CodecError) {
                event = try decoder.nextEvent()
            } catch {
                outcome.error = error.splitFree
                return true
            }
            let current = outcome.requests.count - 1
            switch event {
            case .head(let head):
                outcome.requests[current].head = head
                outcome.requests[current].framing = decoder.framing
            case .body(let bytes):
                if bytes.isEmpty { outcome.violation = "an empty body event" }
                outcome.requests[current].body.append(contentsOf: bytes)
            case .end(let trailers):
                outcome.requests[current].trailers = trailers
                outcome.requests[current].isKeepAlive = decoder.isKeepAlive
            case .needMoreData: return false
            case .paused:
                guard decoder.isKeepAlive, outcome.requests.count < maxRequests else { return true }
                decoder.prepareForNextRequest()
                outcome.requests.append(DecodedRequest())
            }
        }
        outcome.violation = "100,000 events from one feed"
        return true
    }

    /// Properties every decode must have, whatever the split.
    static func check(_ outcome: RequestDecodeOutcome, input: [UInt8], limits: CodecLimits, split: Split) {
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            FuzzCheck.expect(condition, "\(split): \(message())\n \(outcome)")
        }
        expect(outcome.violation == nil, outcome.violation ?? "")
        var bodyBytes = 0
        for (index, request) in outcome.requests.enumerated() {
            bodyBytes += request.body.count
            if index > 0 {
                let previous = outcome.requests[index - 1]
                expect(
                    previous.trailers != nil && previous.isKeepAlive, "a request after one that ended the connection")
            }
            guard let head = request.head else {
                expect(request.body.isEmpty && request.trailers == nil, "body or end before the head")
                continue
            }
            expect(RequestEncoder.isToken(head.method.rawValue), "method \(head.method) is not a token")
            expect(
                !head.target.isEmpty && head.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F },
                "target \(head.target) is not visible ASCII")
            expect(head.version.major == 1, "version \(head.version)")
            if let problem = FieldCheck.problem(in: head.fields) { expect(false, problem) }
            switch request.framing {
            case .contentLength(let length)?:
                let isComplete = request.trailers != nil
                expect(
                    isComplete ? request.body.count == length : request.body.count < length,
                    "Content-Length \(length) but \(request.body.count) body bytes")
            case .none?: expect(request.body.isEmpty, "a body without framing")
            case .untilClose?: expect(false, "a request body read until close (RFC 9112 §6.3 rule 6)")
            case .chunked?, nil: break
            }
            if let trailers = request.trailers {
                expect(trailers.isEmpty || request.framing == .chunked, "trailers without chunked coding")
                if let problem = FieldCheck.problem(in: trailers) { expect(false, "trailer: \(problem)") }
            }
        }
        expect(bodyBytes <= input.count, "more body bytes than input bytes")
        guard outcome.error == nil else { return }
        expect(outcome.requests.last?.trailers != nil, "stopped without an error or a complete request")
        expect(outcome.unconsumed.count + bodyBytes <= input.count, "unconsumed and body bytes exceed the input")
        let tail = input.suffix(outcome.unconsumed.count)
        expect(FuzzInput.same(tail, outcome.unconsumed[...]), "unconsumed bytes are not the tail of the input")
    }

    /// A decoded head, encoded again by the client's encoder and decoded, is the same head. Framing fields
    /// are the encoder's to write (it refuses them from callers), so they are dropped and the decoded framing
    /// is passed instead. Field values with control bytes are skipped: the decoder keeps them (RFC 9110
    /// §5.5 allows it "for the sake of robustness"), the encoder rightly refuses to send them.
    static func checkReencoding(_ request: DecodedRequest, limits: CodecLimits) {
        guard let head = request.head, let framing = request.framing else { return }
        var fields = HTTPFields()
        for field in head.fields where !RequestEncoder.isFramingFieldName(field.name) {
            guard RequestEncoder.isValidFieldValue(field.value) else { return }
            fields.append(field)
        }
        let encoderFraming: RequestBodyFraming
        switch framing {
        case .none: encoderFraming = .none
        case .contentLength(let length): encoderFraming = .contentLength(length)
        case .chunked: encoderFraming = .chunked
        case .untilClose: return  // refused by check(_:input:limits:split:) already
        }
        let stripped = RequestHead(method: head.method, target: head.target, version: head.version, fields: fields)
        var bytes: [UInt8] = []
        do throws(CodecError) {
            try RequestEncoder.encodeHead(stripped, framing: encoderFraming, into: &bytes)
        } catch {
            FuzzCheck.fail("the encoder refuses a head the decoder accepted: \(error)\n \(stripped)")
        }
        let (again, againFraming) = decodeHead(bytes, encoded: stripped)
        let againFields = HTTPFields(again.fields.filter { !RequestEncoder.isFramingFieldName($0.name) })
        let isSame =
            again.method == head.method && again.target == head.target && again.version == head.version
            && againFields == fields && againFraming == framing
        FuzzCheck.expect(
            isSame,
            "the re-encoded head decodes differently\n first: \(head) \(framing)\n again: \(again) \(String(describing: againFraming))"
        )
    }

    /// The head and framing of encoded bytes; fails the run when they are not a head.
    static func decodeHead(_ bytes: [UInt8], encoded head: RequestHead) -> (RequestHead, BodyFraming?) {
        var decoder = RequestDecoder(limits: CodecLimits())
        decoder.feed(bytes)
        do throws(CodecError) {
            if case .head(let again) = try decoder.nextEvent() { return (again, decoder.framing) }
        } catch {
            FuzzCheck.fail("an encoded head does not decode: \(error)\n \(head)")
        }
        FuzzCheck.fail("an encoded head is not a head\n \(head)")
    }
}

// DecoderTestDriver: runs a decoder over bytes split in several ways and records what came out, so unit
// tests can assert one outcome and that every split produces it.

import HTTPWireCodec

/// Everything a ResponseDecoder produced for one input.
struct DecodedResponse: Equatable {
    var informational: [ResponseHead] = []
    var head: ResponseHead?
    var body: [UInt8] = []
    var trailers: HTTPFields?
    var error: CodecError?
    var framing: BodyFraming?
    var isKeepAlive = false
    /// Bytes after the message: still in the decoder plus pieces never fed.
    var unconsumed: [UInt8] = []
}

/// Everything a RequestDecoder produced for one input.
struct DecodedRequest: Equatable {
    var head: RequestHead?
    var body: [UInt8] = []
    var trailers: HTTPFields?
    var error: CodecError?
    var framing: BodyFraming?
    var isKeepAlive = false
    var unconsumed: [UInt8] = []
}

/// Ways to cut the input into pieces.
enum DriverSplit: CaseIterable, CustomStringConvertible {
    case whole, oneByte, seededRandom, twoPieces

    /// Piece lengths for `count` bytes.
    func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: return bytes.isEmpty ? [] : [bytes]
        case .oneByte: return bytes.map { [$0] }
        case .twoPieces:
            let middle = bytes.count / 2
            return [Array(bytes[..<middle]), Array(bytes[middle...])].filter { !$0.isEmpty }
        case .seededRandom:
            var random = DriverRandom(seed: UInt64(bytes.count) &* 0x9E37_79B9)
            var result: [[UInt8]] = []
            var start = 0
            while start < bytes.count {
                let length = min(bytes.count - start, Int(random.next() % 7) + 1)
                result.append(Array(bytes[start..<(start + length)]))
                start += length
            }
            return result
        }
    }

    var description: String {
        switch self {
        case .whole: return "whole"
        case .oneByte: return "one byte at a time"
        case .seededRandom: return "random splits"
        case .twoPieces: return "two pieces"
        }
    }
}

/// SplitMix64: a tiny deterministic generator so split tests repeat exactly.
struct DriverRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

enum DecoderTestDriver {
    /// Decodes one response from `bytes` cut by `split`; `endOfStream` feeds an empty piece after the last.
    static func response(
        _ bytes: [UInt8], split: DriverSplit = .whole, method: Method = .get, endOfStream: Bool = true,
        limits: CodecLimits = CodecLimits()
    ) -> DecodedResponse {
        var decoder = ResponseDecoder(limits: limits)
        decoder.expectResponse(to: method)
        var pieces = split.pieces(bytes)[...]
        var result = DecodedResponse()
        var sentEndOfStream = false
        while true {
            let event: ResponseEvent
            do {
                event = try decoder.nextEvent()
            } catch {
                result.error = error
                return result
            }
            switch event {
            case .informational(let head): result.informational.append(head)
            case .head(let head):
                result.head = head
                result.framing = decoder.framing
            case .body(let body): result.body += body
            case .end(let trailers):
                result.trailers = trailers
                result.isKeepAlive = decoder.isKeepAlive
            case .paused:
                result.unconsumed = Array(decoder.unconsumedBytes) + pieces.joined()
                return result
            case .needMoreData:
                if let piece = pieces.popFirst() {
                    decoder.feed(piece)
                } else if endOfStream && !sentEndOfStream {
                    decoder.feed([UInt8]())
                    sentEndOfStream = true
                } else {
                    return result
                }
            }
        }
    }

    /// Decodes with every split and returns the common outcome, or records which split differed.
    static func responseForEverySplit(
        _ text: String, method: Method = .get, endOfStream: Bool = true, limits: CodecLimits = CodecLimits()
    ) -> (outcome: DecodedResponse, differing: [String]) {
        responseForEverySplit(bytes: Array(text.utf8), method: method, endOfStream: endOfStream, limits: limits)
    }

    /// Same as above, from raw bytes (for obs-text and binary bodies).
    static func responseForEverySplit(
        bytes: [UInt8], method: Method = .get, endOfStream: Bool = true, limits: CodecLimits = CodecLimits()
    ) -> (outcome: DecodedResponse, differing: [String]) {
        let reference = response(bytes, split: .whole, method: method, endOfStream: endOfStream, limits: limits)
        var differing: [String] = []
        for split in DriverSplit.allCases where split != .whole {
            let other = response(bytes, split: split, method: method, endOfStream: endOfStream, limits: limits)
            if other != reference { differing.append("\(split): \(other)") }
        }
        return (reference, differing)
    }

    /// Decodes one request from `bytes` cut by `split`.
    static func request(
        _ bytes: [UInt8], split: DriverSplit = .whole, endOfStream: Bool = true, limits: CodecLimits = CodecLimits()
    ) -> DecodedRequest {
        var decoder = RequestDecoder(limits: limits)
        var pieces = split.pieces(bytes)[...]
        var result = DecodedRequest()
        var sentEndOfStream = false
        while true {
            let event: RequestEvent
            do {
                event = try decoder.nextEvent()
            } catch {
                result.error = error
                return result
            }
            switch event {
            case .head(let head):
                result.head = head
                result.framing = decoder.framing
                result.isKeepAlive = decoder.isKeepAlive
            case .body(let body): result.body += body
            case .end(let trailers): result.trailers = trailers
            case .paused:
                result.unconsumed = Array(decoder.unconsumedBytes) + pieces.joined()
                return result
            case .needMoreData:
                if let piece = pieces.popFirst() {
                    decoder.feed(piece)
                } else if endOfStream && !sentEndOfStream {
                    decoder.feed([UInt8]())
                    sentEndOfStream = true
                } else {
                    return result
                }
            }
        }
    }

    /// Decodes a request with every split and returns the common outcome plus any split that differed.
    static func requestForEverySplit(
        _ text: String, endOfStream: Bool = true, limits: CodecLimits = CodecLimits()
    ) -> (outcome: DecodedRequest, differing: [String]) {
        let bytes = Array(text.utf8)
        let reference = request(bytes, split: .whole, endOfStream: endOfStream, limits: limits)
        var differing: [String] = []
        for split in DriverSplit.allCases where split != .whole {
            let other = request(bytes, split: split, endOfStream: endOfStream, limits: limits)
            if other != reference { differing.append("\(split): \(other)") }
        }
        return (reference, differing)
    }
}

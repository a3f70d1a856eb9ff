// DecoderTranscript: everything a ResponseDecoder said while it was fed one input, piece by piece.
// Test support for the codec layer: drives the decoder exactly as the transport would, no I/O.
//
// The driver feeds each piece, asks for events until the decoder wants more data or pauses, and after the
// last piece feeds the end of the stream (an empty feed) unless the message already ended. It also checks the
// event protocol itself: interim heads only before the final head, body only between head and end, `.paused`
// only after `.end`, and no `.needMoreData` once the stream has ended (a decoder that waits for bytes that can
// never come would hang a client).

import HTTPWireCodec

/// The events, error and left-over bytes of one decode.
struct DecoderTranscript: Sendable {
    var informational: [ResponseHead] = []
    var head: ResponseHead?
    /// `framing` as read right after `.head`.
    var framing: BodyFraming?
    /// The body slices, joined.
    var body: [UInt8] = []
    /// Set by `.end`.
    var trailers: HTTPFields?
    /// `isKeepAlive` as read right after `.end`.
    var isKeepAlive: Bool?
    var error: CodecError?
    /// True once `.paused` was returned.
    var isPaused = false
    /// `unconsumedBytes` after the last feed, when the message ended.
    var unconsumed: [UInt8] = []
    /// Breaches of the event protocol, in words.
    var problems: [String] = []

    /// Feeds `pieces` to a fresh decoder expecting a response to `method`.
    static func decode(
        _ pieces: [ArraySlice<UInt8>], answering method: Method, limits: CodecLimits = CodecLimits()
    ) -> DecoderTranscript {
        var decoder = ResponseDecoder(limits: limits)
        decoder.expectResponse(to: method)
        var transcript = DecoderTranscript()
        for piece in pieces {
            decoder.feed(piece)
            if transcript.isPaused || transcript.error != nil { continue }
            transcript.drain(&decoder)
        }
        if !transcript.isPaused && transcript.error == nil {
            decoder.feed([UInt8]())
            transcript.drain(&decoder)
            if !transcript.isPaused && transcript.error == nil {
                transcript.problems.append("needMoreData after the end of the stream")
            }
        }
        if transcript.isPaused {
            transcript.unconsumed = Array(decoder.unconsumedBytes)
        }
        return transcript
    }

    /// Asks for events until `.needMoreData`, `.paused` or an error.
    private mutating func drain(_ decoder: inout ResponseDecoder) {
        // A bound on events per feed: more than this without needing data means the decoder is looping.
        for _ in 0..<100_000 {
            let event: ResponseEvent
            do throws(CodecError) {
                event = try decoder.nextEvent()
            } catch {
                self.error = error
                return
            }
            switch event {
            case .informational(let interim):
                if head != nil { problems.append("informational \(interim.status.rawValue) after the final head") }
                informational.append(interim)
            case .head(let final):
                if head != nil { problems.append("a second head \(final.status.rawValue)") }
                head = final
                framing = decoder.framing
            case .body(let bytes):
                if head == nil || trailers != nil { problems.append("\(bytes.count) body bytes outside the body") }
                body.append(contentsOf: bytes)
            case .end(let receivedTrailers):
                if head == nil || trailers != nil { problems.append("end without a head, or twice") }
                trailers = receivedTrailers
                isKeepAlive = decoder.isKeepAlive
            case .needMoreData:
                return
            case .paused:
                if trailers == nil { problems.append("paused before the end of the message") }
                isPaused = true
                return
            }
        }
        problems.append("more than 100000 events from one feed")
    }

    /// FNV-1a 64 of `bytes`: a checksum cheap enough to write in Swift here and in Python in make-fixtures.py.
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}

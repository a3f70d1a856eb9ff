// EventStream: the libFuzzer target for `EventStreamParser`, which reads the body of a `text/event-stream`
// response — bytes a server controls for as long as the stream is open. Test tooling for the codec layer,
// built by Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// The first input byte picks the event limit (16 to 4,111 bytes, so the limit is reached often); the rest
// is the stream. Properties:
// - the same events, the same last event ID and retry time, and the same failure (or none) whole, one
//   byte at a time (or in small random pieces for a long input) and in larger random pieces;
// - no event's data is larger than the limit (counting each U+FFFD as the one byte it may stand for); its type, ID and data hold no CR, and only its data an LF;
//   no ID holds U+0000;
// - each event written back in the stream's own syntax (`description`, then an empty line) parses to the
//   same event with a fresh parser: nothing depends on how the server spelled it.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/EventStream
// fuzz-max-len: 4096

@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let first = input.bytes.first else { return 0 }
    let limit = 16 + Int(first) * 16
    let stream = Array(input.bytes.dropFirst())
    let hash = input.hash
    let splits: [Split] = [
        .whole, stream.count <= 512 ? .byteByByte : .random(seed: hash, maxPiece: 8),
        .random(seed: ~hash, maxPiece: 200),
    ]
    let outcomes = splits.map { parse(stream, $0, limit: limit) }
    for (split, outcome) in zip(splits.dropFirst(), outcomes.dropFirst()) {
        FuzzCheck.expect(outcome == outcomes[0], "\(split) gives \(outcome), whole gives \(outcomes[0])")
    }
    for event in outcomes[0].events {
        // The limit counts received bytes; an invalid byte became U+FFFD, 3 bytes in the String.
        let replaced = event.data.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
        FuzzCheck.expect(
            event.data.utf8.count - 2 * replaced <= limit, "data of \(event.data.utf8.count) bytes, limit \(limit)")
        FuzzCheck.expect(
            !event.type.isEmpty && !event.type.utf8.contains(where: isLineEnd), "type \(event.type.debugDescription)")
        FuzzCheck.expect(
            !event.lastEventID.utf8.contains(where: isLineEnd) && !event.lastEventID.utf8.contains(0),
            "id \(event.lastEventID.debugDescription)")
        FuzzCheck.expect(!event.data.utf8.contains(0x0D), "data \(event.data.debugDescription)")
        let written = Array((event.description + "\n\n").utf8)
        let again = parse(written, .whole, limit: written.count)
        FuzzCheck.expect(
            again.events == [event], "\(event.description.debugDescription) parses back to \(again.events)")
    }
    return 0
}

/// What one way of feeding the stream gave.
struct EventStreamOutcome: Equatable, CustomStringConvertible {
    var events: [ServerSentEvent] = []
    var lastEventID = ""
    var retry: Int64?
    var failed = false

    var description: String {
        "\(events.count) events, id \(lastEventID.debugDescription), retry \(retry as Any), failed \(failed)"
    }
}

func parse(_ stream: [UInt8], _ split: Split, limit: Int) -> EventStreamOutcome {
    var parser = EventStreamParser(maxEventBytes: limit)
    var outcome = EventStreamOutcome()
    do {
        for piece in Pieces(stream[...], split) { try parser.feed(piece, into: &outcome.events) }
    } catch let tooLarge as EventStreamParser.EventTooLarge {
        FuzzCheck.expect(tooLarge.limit == limit, "limit \(tooLarge.limit), not \(limit)")
        outcome.failed = true
        // Where in the stream the limit was passed depends on nothing but the bytes; the events before it
        // are the same in every split, so they stay part of the comparison.
    } catch {
        FuzzCheck.fail("unexpected error \(error)")
    }
    outcome.lastEventID = parser.lastEventID
    outcome.retry = parser.reconnectionMilliseconds
    return outcome
}

private func isLineEnd(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

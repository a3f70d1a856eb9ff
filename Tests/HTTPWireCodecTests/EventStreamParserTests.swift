// EventStreamParserTests: `LineSplitter` and `EventStreamParser` against the WHATWG rules for an event
// stream ("Interpreting an event stream"), each input fed whole, a byte at a time, cut at every single
// point, and in seeded random pieces: a socket delivers the same stream in any of these, and the events
// must not change. Also the limits that keep a hostile stream from growing memory.

import HTTPWireCodec
import Testing

@Suite struct EventStreamParserTests {
    /// Every way the tests cut an input: whole, byte by byte, at each single point, and 20 seeded random
    /// splits into pieces of 1 to 9 bytes.
    static func splits(of bytes: [UInt8]) -> [[ArraySlice<UInt8>]] {
        var result: [[ArraySlice<UInt8>]] = [[bytes[...]], bytes.indices.map { bytes[$0...$0] }]
        for cut in 0...bytes.count { result.append([bytes[..<cut], bytes[cut...]]) }
        for seed in 1...20 {
            var generator = SplitMix64(seed: UInt64(seed))
            var pieces: [ArraySlice<UInt8>] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int(generator.next() % 9) + 1)
                pieces.append(bytes[start..<end])
                start = end
            }
            result.append(pieces)
        }
        return result
    }

    /// The lines of `text` and its unended last line, the same for every split.
    static func lines(_ text: String, maxLineBytes: Int = 1024) throws -> [String] {
        var outcomes: Set<[String]> = []
        for pieces in splits(of: Array(text.utf8)) {
            var splitter = LineSplitter(maxLineBytes: maxLineBytes)
            var lines: [String] = []
            for piece in pieces { try splitter.feed(piece) { lines.append(String(decoding: $0, as: UTF8.self)) } }
            if let last = splitter.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
            outcomes.insert(lines)
        }
        #expect(outcomes.count == 1, "every split gives the same lines")
        return outcomes.first ?? []
    }

    /// The events of `text`, checked to be the same for every split; also the parser's final state.
    static func events(
        _ bytes: [UInt8], maxEventBytes: Int = 1 << 16
    ) throws -> (events: [ServerSentEvent], lastEventID: String, retry: Int64?) {
        var outcomes: [(events: [ServerSentEvent], lastEventID: String, retry: Int64?)] = []
        for pieces in splits(of: bytes) {
            var parser = EventStreamParser(maxEventBytes: maxEventBytes)
            var events: [ServerSentEvent] = []
            for piece in pieces { try parser.feed(piece, into: &events) }
            outcomes.append((events, parser.lastEventID, parser.reconnectionMilliseconds))
        }
        let first = outcomes[0]
        #expect(
            outcomes.allSatisfy {
                $0.events == first.events && $0.lastEventID == first.lastEventID && $0.retry == first.retry
            },
            "every split gives the same events, last event ID and retry time")
        return first
    }

    static func events(_ text: String) throws -> [ServerSentEvent] { try events(Array(text.utf8)).events }

    @Test("lines end at CR LF, LF or a lone CR; a CR LF cut in two is one end; the unended last line is kept")
    func lineEnds() throws {
        #expect(try Self.lines("a\r\nb\nc\rd") == ["a", "b", "c", "d"])
        #expect(try Self.lines("\r\n\r\n") == ["", ""])
        #expect(try Self.lines("\r\r\n\n") == ["", "", ""])
        #expect(try Self.lines("x\n") == ["x"])
        #expect(try Self.lines("") == [])
        #expect(try Self.lines("é\u{2028}ü\n") == ["é\u{2028}ü"], "only CR and LF end a line")
    }

    @Test("a line longer than the limit throws, at the limit it passes, whatever the split")
    func lineLimit() throws {
        #expect(try Self.lines(String(repeating: "a", count: 8) + "\n", maxLineBytes: 8).count == 1)
        for pieces in Self.splits(of: Array((String(repeating: "a", count: 9) + "\n").utf8)) {
            var splitter = LineSplitter(maxLineBytes: 8)
            #expect(throws: LineSplitter.LineTooLong(limit: 8)) {
                for piece in pieces { try splitter.feed(piece) { _ in } }
            }
        }
        var splitter = LineSplitter(maxLineBytes: 4)
        try splitter.feed(Array("abcd".utf8)[...]) { _ in }
        #expect(splitter.pendingByteCount == 4)
        #expect(throws: LineSplitter.LineTooLong.self) { try splitter.feed([0x65][...]) { _ in } }
    }

    @Test("the standard's examples: data lines joined with LF, one space after the colon removed, comments")
    func basics() throws {
        let stream = """
            : a comment, then an event of two data lines
            data: YHOO
            data: +2
            data: 10

            data:no space
            data:  two spaces
            """ + "\n\n"
        #expect(
            try Self.events(stream) == [
                ServerSentEvent(data: "YHOO\n+2\n10"), ServerSentEvent(data: "no space\n two spaces"),
            ])
    }

    @Test("event sets the type (empty: message), data alone makes an empty event, no data no event")
    func typesAndEmptyEvents() throws {
        let stream = "event: add\ndata: 1\n\nevent:\ndata\n\ndata\ndata\n\nevent: lonely\n\ndata: after\n\n"
        #expect(
            try Self.events(stream) == [
                ServerSentEvent(type: "add", data: "1"), ServerSentEvent(data: ""), ServerSentEvent(data: "\n"),
                ServerSentEvent(data: "after"),
            ], "an event with a type and no data is dropped, and its type does not leak into the next")
    }

    @Test("id persists across events, an empty id resets it, an id with NUL is ignored; unknown fields too")
    func identifiers() throws {
        let stream = "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\u{0}x\ndata: d\n\nfoo: bar\nid: 3\n\n"
        let parsed = try Self.events(Array(stream.utf8))
        #expect(parsed.events.map(\.lastEventID) == ["1", "1", "", ""])
        #expect(parsed.lastEventID == "3", "an id dispatched with no data still becomes the last event ID")
    }

    @Test("retry: all digits sets the time, anything else is ignored, huge values are capped")
    func retry() throws {
        #expect(try Self.events(Array("retry: 2500\n\n".utf8)).retry == 2500)
        #expect(try Self.events(Array("retry: 2500\nretry: 1.5\nretry: -1\nretry:\nretry: 12a\n".utf8)).retry == 2500)
        #expect(try Self.events(Array("retry: 99999999999999999999999999\n".utf8)).retry == 1 << 53)
        #expect(try Self.events(Array("data: x\n\n".utf8)).retry == nil)
    }

    @Test("a field without a colon, a colon in the value, CR-only and CR LF streams")
    func fieldSyntax() throws {
        #expect(try Self.events("data\r\n\r\n") == [ServerSentEvent(data: "")])
        #expect(try Self.events("data: a: b:c\r\r") == [ServerSentEvent(data: "a: b:c")])
        #expect(try Self.events("data :x\n\n") == [], "`data ` is not `data`")
        #expect(try Self.events("DATA: x\n\n") == [], "field names are case-sensitive")
    }

    @Test("a leading byte order mark is dropped once; a partial one is text; invalid UTF-8 becomes U+FFFD")
    func encoding() throws {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try Self.events(mark + Array("data: x\n\n".utf8)).events == [ServerSentEvent(data: "x")])
        #expect(
            try Self.events(mark + mark + Array("data: x\n\ndata: y\n\n".utf8)).events == [ServerSentEvent(data: "y")],
            "a second mark is part of the first line's field name")
        #expect(try Self.events([0xEF, 0xBB] + Array("\ndata: x\n\n".utf8)).events == [ServerSentEvent(data: "x")])
        #expect(
            try Self.events([0xEF] + Array("data: x\n\n".utf8)).events == [],
            "the first byte of a mark, then text: the line's field is U+FFFD followed by data, not data")
        #expect(try Self.events(Array("data: ".utf8) + [0xFF, 0x41] + [0x0A, 0x0A]).events.first?.data == "\u{FFFD}A")
    }

    @Test("an event the stream ends inside is not delivered")
    func unfinishedEvent() throws {
        #expect(try Self.events("data: a\n\ndata: b\n") == [ServerSentEvent(data: "a")])
        #expect(try Self.events("data: a\n\ndata: b") == [ServerSentEvent(data: "a")])
    }

    @Test("restart: a new stream drops the unfinished event, keeps the last ID and the retry, drops a new BOM")
    func restart() throws {
        var parser = EventStreamParser(maxEventBytes: 1024)
        var events: [ServerSentEvent] = []
        // The stream ends after two whole lines of an event that no empty line closed.
        try parser.feed(Array("retry: 10\nid: 5\ndata: a\n\nevent: x\ndata: cut\n".utf8)[...], into: &events)
        parser.restart()
        try parser.feed(([0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8))[...], into: &events)
        #expect(events == [ServerSentEvent(data: "a", lastEventID: "5"), ServerSentEvent(data: "b", lastEventID: "5")])
        #expect(parser.reconnectionMilliseconds == 10)
    }

    @Test("an event's data, or one line, past the limit throws in every split; at the limit it passes")
    func eventLimit() throws {
        // Two lines of 11 bytes whose data, with a line feed after each, is exactly 12 bytes.
        let atLimit = Array("data: 12345\ndata: 12345\n\n".utf8)
        #expect(try Self.events(atLimit, maxEventBytes: 12).events == [ServerSentEvent(data: "12345\n12345")])
        let overLimit = [
            "data: 12345\ndata: 123456\n\n",  // 13 bytes of data, in lines within the limit
            "data: 1234567\n\n",  // one line of 13 bytes
            ": " + String(repeating: "c", count: 20),  // a comment that never ends
        ]
        for stream in overLimit {
            for pieces in Self.splits(of: Array(stream.utf8)) {
                var parser = EventStreamParser(maxEventBytes: 12)
                var events: [ServerSentEvent] = []
                #expect(throws: EventStreamParser.EventTooLarge(limit: 12)) {
                    for piece in pieces { try parser.feed(piece, into: &events) }
                }
            }
        }
    }

    @Test("description writes the event back in the stream's syntax")
    func description() {
        #expect(
            ServerSentEvent(type: "t", data: "a\nb", lastEventID: "9").description
                == "event: t\nid: 9\ndata: a\ndata: b")
        #expect(ServerSentEvent(data: "").description == "data: ")
    }
}

// EventStreamParser: the body of a `text/event-stream` response, as events (codec layer: pure, no I/O).
//
// The rules are the WHATWG HTML standard's "Interpreting an event stream" (section 9.2.6):
// - The stream is UTF-8; one leading byte order mark is dropped; invalid bytes become U+FFFD.
// - Lines end with CR LF, LF or CR (`LineSplitter`).
// - An empty line dispatches the event gathered so far. A line starting with `:` is a comment (servers send
//   them to keep an idle connection open). Any other line is `field: value`, cut at its first colon, with one
//   space after the colon removed; a line without a colon is a field with an empty value.
// - `event` sets the type, `data` appends its value and a line feed to the data, `id` sets the last event
//   ID unless the value contains U+0000, `retry` sets the reconnection time in milliseconds when the value
//   is all ASCII digits. Every other field is ignored.
// - Dispatching: the last event ID takes the value of the `id` buffer; an event with no data line is not
//   delivered; otherwise one final line feed is removed from the data and the event is delivered, with the
//   type "message" when none was given. Data and type start again empty; the ID stays.
// - An event the stream ends in the middle of (no empty line after it) is not delivered.
//
// The one departure is a limit: an event (or a line) larger than `maxEventBytes` throws instead of growing
// memory without bound, since an event stream never ends by itself and a hostile server could send one
// event forever.

/// Turns the bytes of an event stream, in any pieces, into ``ServerSentEvent``s.
///
/// ```swift
/// var parser = EventStreamParser(maxEventBytes: 1 << 20)
/// var events: [ServerSentEvent] = []
/// try parser.feed(Array("id: 7\ndata: hel".utf8)[...], into: &events)   // nothing yet
/// try parser.feed(Array("lo\n\n".utf8)[...], into: &events)              // data "hello", lastEventID "7"
/// ```
package struct EventStreamParser: Sendable {
    /// Thrown when one event, or one line of it, passes ``maxEventBytes`` before it ends.
    package struct EventTooLarge: Error, Sendable, Hashable {
        /// The limit that was passed.
        package var limit: Int

        /// The error for a stream that passed `limit`.
        package init(limit: Int) { self.limit = limit }
    }

    /// The most bytes one event's data (or any one line) may hold.
    package let maxEventBytes: Int
    /// The event stream's last event ID: the `id` of the last dispatched event, or of an earlier one.
    package private(set) var lastEventID = ""
    /// The latest `retry:` value, in milliseconds (capped at 2^53), or nil while the server sent none.
    package private(set) var reconnectionMilliseconds: Int64?

    private var lines: LineSplitter
    /// Bytes of the byte order mark matched at the start of the stream; 3 once past the start.
    private var byteOrderMarkBytes = 0
    private var data: [UInt8] = []
    private var type: [UInt8] = []
    /// The `id` buffer: becomes ``lastEventID`` when an event is dispatched.
    private var idBuffer = ""

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let pastStart = 3

    /// A parser for a new stream; `maxEventBytes` (at least 1) bounds each event's data and each line.
    /// `lastEventID` is an ID kept from an earlier stream (a client resuming where it stopped).
    package init(maxEventBytes: Int, lastEventID: String = "") {
        self.maxEventBytes = max(1, maxEventBytes)
        lines = LineSplitter(maxLineBytes: self.maxEventBytes)
        self.lastEventID = lastEventID
        idBuffer = lastEventID
    }

    /// Parses `piece`, appending every event it completes to `events`. Throws ``EventTooLarge``.
    package mutating func feed(_ piece: ArraySlice<UInt8>, into events: inout [ServerSentEvent]) throws {
        var rest = piece
        if byteOrderMarkBytes < Self.pastStart {
            while byteOrderMarkBytes < Self.pastStart, let byte = rest.first {
                guard byte == Self.byteOrderMark[byteOrderMarkBytes] else {
                    // Not a byte order mark after all: the bytes matched so far are text.
                    let matched = Self.byteOrderMark[..<byteOrderMarkBytes]
                    byteOrderMarkBytes = Self.pastStart
                    try split(matched, into: &events)
                    break
                }
                byteOrderMarkBytes += 1
                rest = rest.dropFirst()
            }
        }
        try split(rest, into: &events)
    }

    /// Ends a stream: an event not yet ended by an empty line is dropped, as the standard says. The last
    /// event ID and the reconnection time are kept for the next stream, which starts at its own beginning
    /// (a reconnection: its byte order mark is dropped again). The new stream's `id` buffer starts from the
    /// last event ID, as in browsers, so an event without `id:` after a reconnection keeps it.
    package mutating func restart() {
        lines.reset()
        byteOrderMarkBytes = 0
        data = []
        type = []
        idBuffer = lastEventID
    }

    private mutating func split(_ bytes: ArraySlice<UInt8>, into events: inout [ServerSentEvent]) throws {
        // The splitter is moved out while its lines are processed (which changes the rest of `self`), so
        // its unfinished line is never shared, and never copied.
        var splitter = LineSplitter(maxLineBytes: maxEventBytes)
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        do {
            try splitter.feed(bytes) { line in try process(line, into: &events) }
        } catch is LineSplitter.LineTooLong {
            throw EventTooLarge(limit: maxEventBytes)
        }
    }

    private mutating func process(_ line: ArraySlice<UInt8>, into events: inout [ServerSentEvent]) throws {
        guard let first = line.first else { return dispatch(into: &events) }
        if first == UInt8(ascii: ":") { return }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = line
            value = []
        }
        if name.elementsEqual("data".utf8) {
            guard data.count + value.count + 1 <= maxEventBytes else { throw EventTooLarge(limit: maxEventBytes) }
            data.append(contentsOf: value)
            data.append(0x0A)
        } else if name.elementsEqual("event".utf8) {
            type = Array(value)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                reconnectionMilliseconds = value.reduce(Int64(0)) { total, digit in
                    min(total &* 10 &+ Int64(digit - 0x30), Self.maxMilliseconds)
                }
            }
        }
    }

    /// The largest reconnection time kept, 2^53 ms (about 285,000 years): larger values mean "never soon".
    private static let maxMilliseconds: Int64 = 1 << 53

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = idBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            type = []
        }
        guard !data.isEmpty else { return }
        let eventType = type.isEmpty ? "message" : String(decoding: type, as: UTF8.self)
        events.append(
            ServerSentEvent(
                type: eventType, data: String(decoding: data.dropLast(), as: UTF8.self), lastEventID: lastEventID))
    }
}

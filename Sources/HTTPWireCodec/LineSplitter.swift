// LineSplitter: cuts a stream of bytes into lines, whatever pieces the network delivered it in (codec
// layer: pure, no I/O).
//
// Text bodies that are read as they arrive — a log followed live, newline-delimited JSON, an event stream —
// are made of lines, and a piece read from a socket ends wherever the network chose: in the middle of a
// line, or between the CR and the LF of one line end. The splitter keeps the unfinished line between
// pieces and hands on each complete line without its end.
//
// A line ends at CR LF, at LF, or at a CR alone: the three ends the event-stream format allows (WHATWG
// HTML, "Parsing an event stream": `end-of-line = ( cr lf / cr / lf )`), and the ones a text reader such as
// URLSession's `lines` accepts. A CR that ends a piece is a line end at once; an LF at the start of the next
// piece then belongs to it and is skipped, so a CR LF cut in two is one line end, not two. Lines are bytes:
// CR and LF never occur inside a UTF-8 sequence, so each line decodes on its own as the whole text would.
//
// A line longer than the limit is an error rather than memory spent without bound: a hostile or broken
// server could otherwise send one endless line.

/// Splits bytes into lines ended by CR LF, LF or CR, across pieces.
///
/// ```swift
/// var splitter = LineSplitter(maxLineBytes: 1024)
/// try splitter.feed(Array("one\r".utf8)[...]) { print(String(decoding: $0, as: UTF8.self)) }   // one
/// try splitter.feed(Array("\ntwo\nthr".utf8)[...]) { print(String(decoding: $0, as: UTF8.self)) } // two
/// splitter.finish()   // "thr": the last line, which no line end closed
/// ```
package struct LineSplitter: Sendable {
    /// Thrown when a line grows past ``maxLineBytes`` before its end arrives.
    package struct LineTooLong: Error, Sendable, Hashable {
        /// The limit that was passed.
        package var limit: Int

        /// The error for a stream that passed `limit`.
        package init(limit: Int) { self.limit = limit }
    }

    /// The longest line accepted, in bytes, its line end not counted.
    package let maxLineBytes: Int
    /// The start of a line whose end has not arrived yet.
    private var partial: [UInt8] = []
    /// The last piece ended with a CR: an LF starting the next one is the rest of that line end.
    private var skipsLeadingLF = false

    /// A splitter refusing lines longer than `maxLineBytes` (at least 1).
    package init(maxLineBytes: Int) {
        self.maxLineBytes = max(1, maxLineBytes)
    }

    /// Bytes of the current unfinished line held between pieces.
    package var pendingByteCount: Int { partial.count }

    /// Splits `piece`, calling `line` with each line it completes, in order (the bytes without their line
    /// end; a slice valid only during the call). Throws ``LineTooLong`` when the unfinished line passes the
    /// limit, and whatever `line` throws.
    package mutating func feed(
        _ piece: ArraySlice<UInt8>, _ line: (ArraySlice<UInt8>) throws -> Void
    ) throws {
        var start = piece.startIndex
        if skipsLeadingLF, start < piece.endIndex {
            skipsLeadingLF = false
            if piece[start] == 0x0A { start += 1 }
        }
        var index = start
        while index < piece.endIndex {
            let byte = piece[index]
            guard byte == 0x0A || byte == 0x0D else {
                index += 1
                continue
            }
            if partial.isEmpty {
                try checkLength(index - start)
                try line(piece[start..<index])
            } else {
                try checkLength(partial.count + index - start)
                partial.append(contentsOf: piece[start..<index])
                try line(partial[...])
                partial.removeAll(keepingCapacity: true)
            }
            index += 1
            if byte == 0x0D {
                if index == piece.endIndex {
                    skipsLeadingLF = true
                } else if piece[index] == 0x0A {
                    index += 1
                }
            }
            start = index
        }
        if start < piece.endIndex {
            try checkLength(partial.count + piece.endIndex - start)
            partial.append(contentsOf: piece[start...])
        }
    }

    /// Ends the input: returns the last line when bytes followed the last line end (a text whose final
    /// line has no end), or nil when there were none. The splitter is then empty again.
    package mutating func finish() -> [UInt8]? {
        skipsLeadingLF = false
        guard !partial.isEmpty else { return nil }
        defer { partial = [] }
        return partial
    }

    /// Forgets an unfinished line: a new stream starts (a reconnected event stream).
    package mutating func reset() {
        partial = []
        skipsLeadingLF = false
    }

    private func checkLength(_ count: Int) throws {
        if count > maxLineBytes { throw LineTooLong(limit: maxLineBytes) }
    }
}

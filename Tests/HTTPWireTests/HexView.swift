// HexView: draws recorded bytes as an annotated hex dump, one piece of HTTP grammar per group of rows
// (test support for the "Bytes on the wire" article).
//
// A hex view is a list of segments — a status line, a field line, a chunk-size line, chunk data, a
// multipart delimiter — each drawn as rows of at most 16 bytes: the offset, the bytes in hex, the bytes as
// ASCII ('.' for anything not printable, so CR LF shows as `0d 0a` and `..`), and on the segment's first row
// a note naming the rule. The segmenters below cut bytes by the grammar of RFC 9112 (message heads, chunked
// framing) and RFC 2046/7578 (multipart); they never drop or invent a byte — `bytes(of:)` joins the
// segments back and the tests check the result is exactly what was recorded. Nothing here touches a socket.

/// An annotated hex dump of recorded bytes.
struct HexView {
    /// A run of bytes with what it is.
    struct Segment: Equatable {
        var bytes: [UInt8]
        var note: String
    }

    /// Bytes per row, as `xxd` and `hexdump -C` print them.
    static let rowWidth = 16

    /// The dump: one row per 16 bytes of each segment, the note on a segment's first row.
    static func render(_ segments: [Segment]) -> String {
        var rows: [String] = []
        var offset = 0
        for segment in segments {
            var start = 0
            repeat {
                let row = segment.bytes[start..<min(segment.bytes.count, start + rowWidth)]
                let hex = row.map { hexByte($0) }.joined(separator: " ")
                let ascii = String(row.map { (0x20..<0x7f).contains($0) ? Character(UnicodeScalar($0)) : "." })
                let note = start == 0 ? "  " + segment.note : ""
                rows.append(
                    (hexNumber(offset + start, width: 4) + "  " + pad(hex, rowWidth * 3 - 1) + "  "
                        + pad(ascii, rowWidth) + note).trimmingTrailingSpaces)
                start += rowWidth
            } while start < segment.bytes.count
            offset += segment.bytes.count
        }
        return rows.joined(separator: "\n")
    }

    /// The segments joined back: exactly the bytes they were cut from.
    static func bytes(of segments: [Segment]) -> [UInt8] {
        segments.flatMap(\.bytes)
    }

    // MARK: Cutting by the grammar

    /// A message head (RFC 9112 §2.1): the start line, each field line, the empty line. `notes` gives a
    /// field a more telling note than "field line" by its name (case-insensitive).
    static func head(_ bytes: [UInt8], isRequest: Bool, notes: [String: String] = [:]) -> [Segment] {
        var segments: [Segment] = []
        for line in lines(bytes) {
            if segments.isEmpty {
                segments.append(
                    Segment(
                        bytes: line,
                        note: isRequest ? "request line (RFC 9112 §3)" : "status line (RFC 9112 §4)"))
            } else if line == crlf {
                segments.append(Segment(bytes: line, note: "empty line: the head ends (RFC 9112 §2.1)"))
            } else {
                let name = String(decoding: line.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self).lowercased()
                let note = notes.first { $0.key.lowercased() == name }?.value ?? "field line (RFC 9112 §5)"
                segments.append(Segment(bytes: line, note: note))
            }
        }
        return segments
    }

    /// A chunked body (RFC 9112 §7.1): each chunk's size line, data and CRLF, the last chunk, the trailer
    /// fields and the empty line that ends the message. Returns nil when the bytes are not one whole body.
    static func chunkedBody(_ bytes: [UInt8]) -> [Segment]? {
        var segments: [Segment] = []
        var rest = bytes[...]
        while true {
            guard let sizeLine = nextLine(&rest) else { return nil }
            let digits = String(decoding: sizeLine.dropLast(2).prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self)
            guard let size = Int(digits, radix: 16) else { return nil }
            if size == 0 {
                segments.append(Segment(bytes: sizeLine, note: "last chunk: size 0 (RFC 9112 §7.1)"))
                break
            }
            segments.append(Segment(bytes: sizeLine, note: "chunk size 0x\(digits) = \(size) bytes, CRLF"))
            guard rest.count >= size + 2 else { return nil }
            segments.append(Segment(bytes: Array(rest.prefix(size)), note: "chunk data"))
            rest = rest.dropFirst(size)
            guard rest.prefix(2).elementsEqual(crlf) else { return nil }
            segments.append(Segment(bytes: crlf, note: "CRLF after the data"))
            rest = rest.dropFirst(2)
        }
        while let line = nextLine(&rest) {
            if line == crlf {
                segments.append(Segment(bytes: line, note: "empty line: the message ends (RFC 9112 §7.1)"))
                return rest.isEmpty ? segments : nil
            }
            segments.append(Segment(bytes: line, note: "trailer field (RFC 9112 §7.1.2)"))
        }
        return nil
    }

    /// A multipart/form-data body (RFC 2046 §5.1.1, RFC 7578): each delimiter, the part's field lines and
    /// empty line, its content, and the close delimiter. The CRLF before a delimiter belongs to it (RFC
    /// 2046 §5.1.1), so a part's content is exactly the file's bytes. Nil when the bytes do not parse.
    static func multipartBody(_ bytes: [UInt8], boundary: String) -> [Segment]? {
        let delimiter = Array("--\(boundary)".utf8)
        var segments: [Segment] = []
        var rest = bytes[...]
        guard rest.starts(with: delimiter + crlf) else { return nil }
        segments.append(Segment(bytes: delimiter + crlf, note: "delimiter: -- boundary CRLF (RFC 2046 §5.1.1)"))
        rest = rest.dropFirst(delimiter.count + 2)
        while true {
            while let line = nextLine(&rest) {
                if line == crlf {
                    segments.append(Segment(bytes: line, note: "empty line: the part's head ends"))
                    break
                }
                segments.append(Segment(bytes: line, note: "part field (RFC 7578 §4.2, §4.4)"))
            }
            let next = crlf + delimiter
            guard let end = firstRange(of: next, in: rest) else { return nil }
            let content = Array(rest[rest.startIndex..<end])
            segments.append(Segment(bytes: content, note: "the file's \(content.count) bytes, unchanged"))
            rest = rest[end...].dropFirst(next.count)
            if rest.starts(with: Array("--".utf8) + crlf) {
                segments.append(
                    Segment(bytes: next + Array("--".utf8) + crlf, note: "CRLF, close delimiter: -- boundary --"))
                return rest.count == 4 ? segments : nil
            }
            guard rest.starts(with: crlf) else { return nil }
            segments.append(Segment(bytes: next + crlf, note: "CRLF, delimiter: the next part"))
            rest = rest.dropFirst(2)
        }
    }

    /// Bytes that are not cut further, with one note.
    static func opaque(_ bytes: [UInt8], note: String) -> [Segment] {
        [Segment(bytes: bytes, note: note)]
    }

    // MARK: Helpers

    static let crlf: [UInt8] = [0x0d, 0x0a]

    /// The lines of `bytes`, each with its CRLF; a last piece without one is kept as it is.
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var rest = bytes[...]
        var result: [[UInt8]] = []
        while let line = nextLine(&rest) { result.append(line) }
        if !rest.isEmpty { result.append(Array(rest)) }
        return result
    }

    /// Takes the next line, CRLF included, off the front of `rest`; nil when no CRLF is left.
    static func nextLine(_ rest: inout ArraySlice<UInt8>) -> [UInt8]? {
        guard let end = firstRange(of: crlf, in: rest) else { return nil }
        let line = Array(rest[rest.startIndex..<end + 2])
        rest = rest[(end + 2)...]
        return line
    }

    /// Where `needle` first starts in `haystack`.
    static func firstRange(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    static func hexByte(_ byte: UInt8) -> String {
        hexNumber(Int(byte), width: 2)
    }

    static func hexNumber(_ value: Int, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}

extension String {
    /// The text without spaces at its end (a short last row has no note to pad for).
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}

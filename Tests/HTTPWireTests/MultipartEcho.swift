// MultipartEcho: reads back the parts of a multipart/form-data body that `/upload?raw=1` echoed (test support
// of the chaos suite).
//
// The body is `--B CRLF head CRLF CRLF content (CRLF --B CRLF head CRLF CRLF content)* CRLF --B-- CRLF`
// (RFC 2046 §5.1.1; the CRLF before each delimiter belongs to the delimiter). The boundary is the body's
// first line, so the check needs nothing from the client that sent it: a body whose framing is broken —
// a lost, doubled or changed byte anywhere — does not parse, or parses to other contents.

/// The contents of an echoed multipart body.
enum MultipartEcho {
    /// Each part's content in order, or nil when `body` is not a well-formed multipart body.
    static func contents(of body: [UInt8]) -> [[UInt8]]? {
        let crlf: [UInt8] = [13, 10]
        guard let firstLineEnd = find(crlf, in: body, from: 0), firstLineEnd > 2,
            body[0] == UInt8(ascii: "-"), body[1] == UInt8(ascii: "-")
        else { return nil }
        let delimiter = crlf + body[..<firstLineEnd]
        var parts: [[UInt8]] = []
        var start = firstLineEnd + 2  // the first part's head
        while true {
            guard let headEnd = find(crlf + crlf, in: body, from: start),
                let next = find(delimiter, in: body, from: headEnd + 4)
            else { return nil }
            parts.append(Array(body[(headEnd + 4)..<next]))
            let after = next + delimiter.count
            guard after + 2 <= body.count else { return nil }
            if body[after] == UInt8(ascii: "-") && body[after + 1] == UInt8(ascii: "-") {
                // The close delimiter, then CRLF and nothing more (no epilogue is sent).
                return Array(body[(after + 2)...]) == crlf ? parts : nil
            }
            guard Array(body[after..<(after + 2)]) == crlf else { return nil }
            start = after + 2
        }
    }

    /// The first index at or after `start` where `needle` occurs in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        return haystack.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { pattern in
                var index = start
                let last = bytes.count - pattern.count
                while index <= last {
                    if bytes[index] == pattern[0] {
                        var offset = 1
                        while offset < pattern.count && bytes[index + offset] == pattern[offset] { offset += 1 }
                        if offset == pattern.count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}

// HeadParser: the start lines of HTTP/1.1 messages, the status line and the request line.
// Codec layer: pure functions over one complete line; no I/O, no buffering.
//
// RFC 9112 §4:  status-line  = HTTP-version SP status-code SP [ reason-phrase ]
// RFC 9112 §3:  request-line = method SP request-target SP HTTP-version
// RFC 9112 §2.3: HTTP-version = "HTTP" "/" DIGIT "." DIGIT, case-sensitive.
// The decoders find the line (HeadScanner) and hand it here without its line ending. Field lines are
// FieldLineParser's job; deciding the body length is BodyFraming's.

/// Parses status lines and request lines.
enum HeadParser {
    /// `HTTP/1.`: every status line HTTPWire accepts starts with these 7 bytes.
    private static let versionPrefix: [UInt8] = Array("HTTP/1.".utf8)
    /// How many first bytes the early check looks at: `HTTP/1.` plus the minor digit.
    static let earlyCheckLength = 8

    /// Fails fast when the first bytes cannot start an HTTP/1.x status line: a TLS record (`\x16\x03`)
    /// from an HTTPS port, an HTTP/2 preface or plain garbage is refused without waiting for a line end or
    /// for `maxHeadBytes`. The decision looks at exactly the first 8 bytes (fewer only at end of stream),
    /// so the error and its preview are the same however the bytes were split.
    ///
    /// Returns normally when the bytes are a valid prefix or when it is too early to tell.
    static func checkStatusLineStart(_ bytes: UnsafeBufferPointer<UInt8>, isEndOfStream: Bool) throws(CodecError) {
        guard bytes.count >= earlyCheckLength || isEndOfStream else { return }
        let first = UnsafeBufferPointer(rebasing: bytes[0..<min(bytes.count, earlyCheckLength)])
        for index in 0..<min(first.count, versionPrefix.count) where first[index] != versionPrefix[index] {
            // RFC 9112 §2.3: a major version other than 1 ("HTTP/2", "HTTP/3.0") is a different protocol.
            if index == 5, isDigit(first[index]) {
                var end = index
                while end < first.count && first[end] != ByteClasses.space { end += 1 }
                throw .unsupportedVersion(
                    preview: ByteClasses.escapedPreview(UnsafeBufferPointer(rebasing: first[0..<end])))
            }
            throw .invalidStatusLine(preview: ByteClasses.escapedPreview(first))
        }
        if first.count == earlyCheckLength, !isDigit(first[7]) {
            throw .invalidStatusLine(preview: ByteClasses.escapedPreview(first))
        }
    }

    /// Parses a status line (without its line ending) into version, status and reason.
    ///
    /// Leniency: `HTTP/1.1 200` without the SP before an empty reason is accepted. RFC 9112 §4 requires the
    /// SP, but servers omit it and the meaning is unambiguous.
    static func parseStatusLine(
        _ line: UnsafeBufferPointer<UInt8>
    ) throws(CodecError) -> (version: HTTPVersion, status: Status, reason: String) {
        // Built only when needed: escaping is far slower than parsing.
        func invalid() -> CodecError { .invalidStatusLine(preview: ByteClasses.escapedPreview(line)) }
        // "HTTP/1.x SP ddd" is 12 bytes; the version prefix itself was checked early, check it again here.
        guard line.count >= 12, let version = try parseVersion(line, at: 0), line[8] == ByteClasses.space else {
            throw invalid()
        }
        var code = 0
        for index in 9..<12 {
            guard isDigit(line[index]) else { throw invalid() }
            code = code * 10 + Int(line[index] &- 0x30)
        }
        // RFC 9110 §15: status codes are 100...599 (600...999 are treated as 5xx by Status.kind); codes below
        // 100 fit no class and would leave the framing rules of RFC 9112 §6.3 undefined.
        guard code >= 100 else { throw invalid() }
        var reason = ""
        if line.count > 12 {
            guard line[12] == ByteClasses.space else { throw invalid() }
            // reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ); bare CR and NUL were refused by the caller.
            reason = String(decoding: UnsafeBufferPointer(rebasing: line[13...]), as: UTF8.self)
        }
        return (version, Status(rawValue: code), reason)
    }

    /// Parses a request line (without its line ending): `method SP request-target SP HTTP/1.x`.
    ///
    /// Strict on purpose: exactly one SP between the parts (RFC 9112 §3 lets a server split on any
    /// whitespace, but two hops that split differently disagree about the target: request smuggling), a
    /// token method (RFC 9110 §9.1), and a target of visible ASCII only (RFC 9112 §3.2, RFC 3986 §2).
    static func parseRequestLine(
        _ line: UnsafeBufferPointer<UInt8>
    ) throws(CodecError) -> (method: Method, target: String, version: HTTPVersion) {
        // Built only when needed: escaping is far slower than parsing.
        func invalid() -> CodecError { .invalidRequestLine(preview: ByteClasses.escapedPreview(line)) }
        var methodEnd = 0
        while methodEnd < line.count && ByteClasses.isTokenByte(line[methodEnd]) { methodEnd += 1 }
        guard methodEnd > 0, methodEnd < line.count, line[methodEnd] == ByteClasses.space else { throw invalid() }
        var targetEnd = methodEnd + 1
        while targetEnd < line.count && line[targetEnd] > 0x20 && line[targetEnd] < 0x7F { targetEnd += 1 }
        guard targetEnd > methodEnd + 1, targetEnd < line.count, line[targetEnd] == ByteClasses.space else {
            throw invalid()
        }
        let versionStart = targetEnd + 1
        let versionBytes = UnsafeBufferPointer(rebasing: line[versionStart...])
        guard versionBytes.count == earlyCheckLength, let version = try parseVersion(line, at: versionStart) else {
            // "HTTP/2" or "HTTP/3.0": a well-formed start of another major version gets its own error.
            if versionBytes.count >= 6, startsWithHTTPSlash(versionBytes, at: 0), isDigit(versionBytes[5]),
                versionBytes[5] != UInt8(ascii: "1")
            {
                throw .unsupportedVersion(preview: ByteClasses.escapedPreview(versionBytes))
            }
            throw invalid()
        }
        let method = String(decoding: UnsafeBufferPointer(rebasing: line[0..<methodEnd]), as: UTF8.self)
        let target = String(decoding: UnsafeBufferPointer(rebasing: line[(methodEnd + 1)..<targetEnd]), as: UTF8.self)
        return (Method(rawValue: method), target, version)
    }

    /// Reads `HTTP/d.d` at `start`. Returns nil when the bytes are not a version at all, throws
    /// unsupportedVersion for a well-formed version whose major digit is not 1 (RFC 9112 §2.3), and accepts
    /// any minor digit (RFC 9110 §2.5: a higher minor version is still HTTP/1 and is read as 1.1).
    private static func parseVersion(
        _ line: UnsafeBufferPointer<UInt8>, at start: Int
    ) throws(CodecError) -> HTTPVersion? {
        guard line.count - start >= earlyCheckLength else { return nil }
        guard startsWithHTTPSlash(line, at: start) else { return nil }
        let major = line[start + 5]
        let minor = line[start + 7]
        guard isDigit(major), line[start + 6] == UInt8(ascii: "."), isDigit(minor) else { return nil }
        if major != UInt8(ascii: "1") {
            throw .unsupportedVersion(
                preview: ByteClasses.escapedPreview(UnsafeBufferPointer(rebasing: line[start..<(start + 8)])))
        }
        return HTTPVersion(major: major &- 0x30, minor: minor &- 0x30)
    }

    /// True when the 5 bytes at `start` are `HTTP/` (case-sensitive, RFC 9112 §2.3).
    @inline(__always)
    private static func startsWithHTTPSlash(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        bytes.count - start >= 5 && bytes[start] == UInt8(ascii: "H") && bytes[start + 1] == UInt8(ascii: "T")
            && bytes[start + 2] == UInt8(ascii: "T") && bytes[start + 3] == UInt8(ascii: "P")
            && bytes[start + 4] == UInt8(ascii: "/")
    }

    /// True for ASCII digits.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

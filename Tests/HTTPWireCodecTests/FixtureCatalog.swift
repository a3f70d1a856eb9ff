// FixtureCatalog: the expected outcome of every raw response in Fixtures/responses.
// Test support for the codec layer: data only. The files are written by Fixtures/responses/make-fixtures.py;
// body lengths and FNV-1a 64 checksums below are what its `--summary` prints for the bodies it wrote.
//
// Each entry is the RFC's answer, not the decoder's: when the decoder disagrees, the decoder is wrong (or the
// entry cites the rule that allows a choice). Sections follow RFC 9112: status line (§4), field lines (§5,
// §2.2), message body length (§6.3, one fixture per rule), chunked coding (§7.1), interim responses (RFC 9110
// §15.2) and persistence (§9.3).

import HTTPWireCodec

/// The corpus and the location of its files.
enum FixtureCatalog {
    /// `Fixtures/responses` at the repository root, found from this file's path.
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // FixtureCatalog.swift, HTTPWireCodecTests, Tests
        return parts.joined(separator: "/") + "/Fixtures/responses"
    }()

    static let hello: (length: Int, checksum: UInt64) = (5, 0xA430_D846_80AA_BD0B)
    static let emptyChecksum: UInt64 = 0xCBF2_9CE4_8422_2325

    /// A fixture that decodes to a response.
    static func decodes(_ file: String, _ response: ExpectedResponse, method: Method = .get) -> FixtureExpectation {
        FixtureExpectation(file: file, method: method, outcome: .response(response))
    }

    /// A fixture that fails with an error.
    static func fails(_ file: String, _ error: ExpectedError, method: Method = .get) -> FixtureExpectation {
        FixtureExpectation(file: file, method: method, outcome: .failure(error))
    }

    /// A response whose body is `hello`, framed by `Content-Length: 5`.
    static func helloResponse(
        version: HTTPVersion = .http1_1, status: Int = 200, fields: [FieldCheck] = [], keepAlive: Bool = true
    ) -> ExpectedResponse {
        ExpectedResponse(
            version: version, status: status, fields: fields, framing: .contentLength(5), bodyLength: hello.length,
            bodyChecksum: hello.checksum, isKeepAlive: keepAlive)
    }

    /// A response without a body (HEAD, 204, 304: RFC 9112 §6.3 rules 1 and 2).
    static func bodiless(status: Int = 200, fields: [FieldCheck] = [], bytesAfterMessage: Int = 0) -> ExpectedResponse {
        ExpectedResponse(
            status: status, fields: fields, framing: .none, bodyLength: 0, bodyChecksum: emptyChecksum,
            isKeepAlive: true, bytesAfterMessage: bytesAfterMessage)
    }

    static let entries: [FixtureExpectation] =
        statusLines + fieldLines + headLimits + contentLength + transferEncoding + chunked + bodiless + interim
        + persistence

    // MARK: Status line (RFC 9112 §4)

    static let statusLines: [FixtureExpectation] = [
        decodes(
            "status-http11-ok.http",
            ExpectedResponse(
                status: 200, reason: "OK", fields: [.value("Content-Type", "text/plain")], framing: .contentLength(13),
                bodyLength: 13, bodyChecksum: 0x38D1_3341_4498_7BF4, isKeepAlive: true)),
        // RFC 9112 §9.3: an HTTP/1.0 response without `Connection: keep-alive` ends its connection.
        decodes(
            "status-http10-ok.http",
            ExpectedResponse(
                version: .http1_0, status: 200, framing: .contentLength(13), bodyLength: 13,
                bodyChecksum: 0x38D1_3341_4498_7BF4, isKeepAlive: false)),
        // RFC 9112 §4: the reason phrase is optional; a missing SP before it is a common, harmless slip.
        decodes(
            "status-no-reason.http",
            ExpectedResponse(
                status: 200, reason: "", framing: .contentLength(13), bodyLength: 13,
                bodyChecksum: 0x38D1_3341_4498_7BF4, isKeepAlive: true)),
        decodes(
            "status-empty-reason.http",
            ExpectedResponse(
                status: 404, reason: "", framing: .contentLength(9), bodyLength: 9, bodyChecksum: 0x0856_5CF8_A3E3_EE3A,
                isKeepAlive: true)),
        decodes(
            "status-long-reason.http",
            ExpectedResponse(
                status: 503, reason: Array(repeating: "Very Long Reason Phrase", count: 40).joined(separator: " "),
                framing: .contentLength(0), bodyLength: 0, bodyChecksum: emptyChecksum, isKeepAlive: true)),
        // RFC 9112 §4: reason-phrase allows obs-text; a client ignores its content.
        decodes(
            "status-reason-with-obs-text.http",
            ExpectedResponse(
                status: 200, framing: .contentLength(2), bodyLength: 2, bodyChecksum: 0x08B0_5D07_B556_6BEF,
                isKeepAlive: true)),
        // RFC 9110 §15: an unregistered code is understood by its class.
        decodes(
            "status-unregistered-code.http",
            ExpectedResponse(
                status: 599, reason: "Custom Failure", framing: .contentLength(4), bodyLength: 4,
                bodyChecksum: 0x1198_05B4_7155_934E, isKeepAlive: true)),
        fails("status-garbage.http", .invalidStatusLine(previewPrefix: "Welcome")),
        // RFC 9112 §2.3: HTTP-name is case-sensitive.
        fails("status-lowercase-http.http", .invalidStatusLine(previewPrefix: "http/1.1")),
        fails("status-two-digit-code.http", .invalidStatusLine(previewPrefix: "HTTP/1.1 20")),
        fails("status-four-digit-code.http", .invalidStatusLine(previewPrefix: "HTTP/1.1 200")),
        fails("status-letters-in-code.http", .invalidStatusLine(previewPrefix: "HTTP/1.1 2")),
        fails("status-tls-alert.http", .invalidStatusLine(previewPrefix: "\\x15\\x03\\x03")),
        fails("status-tls-handshake.http", .invalidStatusLine(previewPrefix: "\\x16\\x03\\x03")),
        fails("status-http2-preface.http", .invalidStatusLine(previewPrefix: "PRI * HT")),
        // Found by the fuzzer: a head shorter than "HTTP/1.x" must fail the same way whatever the split.
        fails("fuzz-short-head-bare-cr.http", .invalidStatusLine(previewPrefix: "0\\r\\r\\n")),
        fails("status-http2-settings-frame.http", .invalidStatusLine(previewPrefix: "\\x00\\x00\\x12\\x04")),
        // RFC 9112 §2.3: only major version 1 is HTTP/1.1's syntax.
        fails("status-http20-version.http", .unsupportedVersion(previewContaining: "2.0")),
        fails("status-http30-version.http", .unsupportedVersion(previewContaining: "3.0")),
    ]

    // MARK: Field lines (RFC 9112 §5, §2.2; RFC 9110 §5)

    static let fieldLines: [FixtureExpectation] = [
        // RFC 9110 §5.3: duplicates kept, in order.
        decodes(
            "fields-duplicates.http",
            ExpectedResponse(
                status: 200, fields: [.values("set-cookie", ["a=1", "b=2"]), .values("Vary", ["Accept", "Origin"])],
                framing: .contentLength(2), bodyLength: 2, bodyChecksum: 0x08B0_5D07_B556_6BEF, isKeepAlive: true)),
        // RFC 9110 §5.1: names are case-insensitive; the spelling received is kept.
        decodes(
            "fields-case.http",
            ExpectedResponse(
                status: 200,
                fields: [
                    .value("content-length", "4"), .value("Content-Type", "text/plain"),
                    .value("x-mixed-case", "Value Kept"), .spelled("X-MiXeD-CaSe"), .spelled("CONTENT-LENGTH"),
                ],
                framing: .contentLength(4), bodyLength: 4, bodyChecksum: 0xB55E_6190_E879_2FD1, isKeepAlive: true)),
        // RFC 9112 §5.1: OWS around the value is not part of it; inner whitespace is.
        decodes(
            "fields-whitespace-trimmed.http",
            ExpectedResponse(
                status: 200,
                fields: [
                    .value("X-Padded", "inner  spaces kept"), .value("X-Tab", "v"), .value("Content-Length", "4"),
                ],
                framing: .contentLength(4), bodyLength: 4, bodyChecksum: 0x5B33_C0EF_512A_FE89, isKeepAlive: true)),
        decodes(
            "fields-empty-value.http",
            ExpectedResponse(
                status: 200, fields: [.value("X-Empty", ""), .value("X-Blank", "")], framing: .contentLength(1),
                bodyLength: 1, bodyChecksum: 0xAF63_D84C_8601_E5C0, isKeepAlive: true)),
        // RFC 9112 §5.2: a user agent MUST replace each obs-fold with SP.
        decodes(
            "fields-obs-fold.http",
            ExpectedResponse(
                status: 200, fields: [.value("X-Folded", "first second"), .value("X-Multi", "a b c")],
                framing: .contentLength(4), bodyLength: 4, bodyChecksum: 0xDD15_FA79_0C28_D98A, isKeepAlive: true)),
        // RFC 9112 §2.2: a recipient MAY recognise a single LF as a line terminator.
        decodes("fields-bare-lf.http", helloResponse(fields: [.value("X-Line", "lf only")])),
        decodes("fields-mixed-line-endings.http", helloResponse(fields: [.value("X-A", "crlf"), .value("X-B", "lf")])),
        fails("fields-no-colon.http", .invalidFieldLine(previewContaining: "This line")),
        // RFC 9112 §5.1: no whitespace between name and colon; lenient parsing here enabled smuggling.
        fails("fields-space-before-colon.http", .invalidFieldLine(previewContaining: "Content-Length")),
        fails("fields-tab-before-colon.http", .invalidFieldLine(previewContaining: "Transfer-Encoding")),
        fails("fields-empty-name.http", .invalidFieldLine(previewContaining: ": no name")),
        fails("fields-name-not-token.http", .invalidFieldLine(previewContaining: "(Bad)")),
        // RFC 9110 §5.5: NUL in a value: reject or replace with SP; HTTPWire rejects.
        fails("fields-nul-in-value.http", .invalidFieldLine(previewContaining: "\\x00")),
        // RFC 9112 §2.2: a bare CR makes the element invalid (or becomes SP); HTTPWire rejects, so
        // `a\rContent-Length: 99` can never be read as a second field.
        fails("fields-lone-cr-in-value.http", .exactly(.bareCarriageReturn)),
        fails("fields-lone-cr-line-end.http", .exactly(.bareCarriageReturn)),
        // RFC 9110 §5.5: obs-text (0x80-0xFF) is allowed in values.
        decodes(
            "fields-obs-text.http",
            ExpectedResponse(
                status: 200, fields: [.value("X-Utf8", "caf\u{E9}"), .spelled("X-Latin1")], framing: .contentLength(3),
                bodyLength: 3, bodyChecksum: 0x1A31_A019_21ED_50C5, isKeepAlive: true)),
        // RFC 9112 §2.2: whitespace between the start line and the first field: reject, or ignore that line.
        // HTTPWire rejects (an ignored ` Content-Length: 5` is exactly what a smuggler hopes another parser reads).
        fails("fields-whitespace-before-first.http", .invalidFieldLine(previewContaining: "Content-Length: 5")),
        // CodecLimits: ~100 ordinary fields plus a 16 KiB cookie fit.
        decodes(
            "fields-hundred-and-big-cookie.http",
            ExpectedResponse(
                status: 200,
                fields: [
                    .value("X-Field-042", "value 42"), .value("x-field-099", "value 99"),
                    .value("Set-Cookie", "session=" + String(repeating: "c", count: 16 * 1024)),
                ],
                framing: .contentLength(5), bodyLength: 5, bodyChecksum: 0x4E1F_D546_1DFE_5EF9, isKeepAlive: true)),
        decodes(
            "fields-exactly-at-limit.http",
            ExpectedResponse(
                status: 200, fields: [.value("X-F254", "v")], framing: .contentLength(2), bodyLength: 2,
                bodyChecksum: 0x08B0_5D07_B556_6BEF, isKeepAlive: true)),
        fails("fields-too-many.http", .exactly(.tooManyFields(limit: 256, seen: 257))),
    ]

    // MARK: Head size and truncation

    static let headLimits: [FixtureExpectation] = [
        // CodecLimits.maxHeadBytes counts the status line, the fields and the empty line: exactly 64 KiB fits.
        decodes(
            "head-exactly-at-limit.http",
            ExpectedResponse(
                status: 200, framing: .contentLength(2), bodyLength: 2, bodyChecksum: 0x08B0_5D07_B556_6BEF,
                isKeepAlive: true)),
        fails("head-one-over-limit.http", .headTooLarge(limit: 64 * 1024)),
        fails("head-too-large.http", .headTooLarge(limit: 64 * 1024)),
        fails("head-endless-status-line.http", .headTooLarge(limit: 64 * 1024)),
        fails("head-truncated.http", .exactly(.truncatedHead(received: 39))),
        fails("head-truncated-before-empty-line.http", .exactly(.truncatedHead(received: 36))),
        // The connection closed before any byte: the client reports this as an empty reply.
        fails("empty.http", .exactly(.truncatedHead(received: 0))),
    ]
}

// FixtureCatalog+Framing: expected outcomes for the fixtures about message framing.
// Test support for the codec layer: data only.
//
// RFC 9112 §6.3 decides a response's body length in order; each rule has fixtures here:
//   1. response to HEAD, or 1xx, 204, 304: no body, whatever the fields say (method-head-*, status-204-*,
//      status-304-*, interim-100-with-content-length);
//   2. 2xx to CONNECT: a tunnel (HTTPWire never sends CONNECT, so no fixture can reach it);
//   3. Transfer-Encoding with Content-Length: HTTPWire refuses it (transfer-encoding-*-content-length*);
//   4. Transfer-Encoding whose final coding is chunked: chunked; otherwise nothing HTTPWire can decode
//      (transfer-encoding-*, chunked-*);
//   5. invalid or differing Content-Length: an error (content-length-conflict-*, -non-numeric, ...);
//   6. a valid Content-Length: that many bytes (content-length-*);
//   7. (requests only);
//   8. otherwise: read until the server closes (until-close-*), and the connection is never reused.

import HTTPWireCodec

extension FixtureCatalog {
    // MARK: Content-Length (RFC 9110 §8.6; RFC 9112 §6.3 rules 5 and 6)

    static let contentLength: [FixtureExpectation] = [
        decodes(
            "content-length-binary-body.http",
            ExpectedResponse(
                status: 200, framing: .contentLength(256), bodyLength: 256, bodyChecksum: 0xFD4E_6F8A_5F5E_2725,
                isKeepAlive: true)),
        decodes(
            "content-length-zero.http",
            ExpectedResponse(
                status: 200, framing: .contentLength(0), bodyLength: 0, bodyChecksum: emptyChecksum, isKeepAlive: true)),
        // RFC 9110 §8.6: Content-Length = 1*DIGIT, so leading zeros are digits like any other.
        decodes("content-length-leading-zeros.http", helloResponse()),
        // RFC 9110 §8.6: identical values, as two lines or as a list, may be accepted as one.
        decodes("content-length-identical-lines.http", helloResponse()),
        decodes("content-length-identical-list.http", helloResponse()),
        // RFC 9110 §5.6.1: OWS may surround the commas of a list.
        decodes("content-length-list-whitespace.http", helloResponse()),
        // RFC 9112 §6.3 rule 5: differing values are unrecoverable (response splitting).
        fails("content-length-conflict-lines.http", .exactly(.conflictingContentLength(["5", "6"]))),
        // The error lists the field values as received: here one line holding both numbers.
        fails("content-length-conflict-list.http", .exactly(.conflictingContentLength(["5, 6"]))),
        fails("content-length-non-numeric.http", .exactly(.invalidContentLength("abc"))),
        fails("content-length-negative.http", .exactly(.invalidContentLength("-5"))),
        fails("content-length-plus-sign.http", .exactly(.invalidContentLength("+5"))),
        fails("content-length-empty.http", .exactly(.invalidContentLength(""))),
        fails("content-length-overflow.http", .exactly(.invalidContentLength("99999999999999999999"))),
        // The largest Int64 is a valid length; the body then ends early.
        fails(
            "content-length-int64-max-truncated.http",
            .exactly(.truncatedBody(expected: 9_223_372_036_854_775_807, received: 3))),
        fails("content-length-truncated-body.http", .exactly(.truncatedBody(expected: 10, received: 4))),
        // A pipelined second response is not part of the first: it stays unconsumed.
        decodes(
            "content-length-then-next-response.http",
            ExpectedResponse(
                status: 200, framing: .contentLength(5), bodyLength: hello.length, bodyChecksum: hello.checksum,
                isKeepAlive: true, bytesAfterMessage: 43)),
    ]

    // MARK: Transfer-Encoding (RFC 9112 §6.1; §6.3 rules 3 and 4)

    static let transferEncoding: [FixtureExpectation] = [
        decodes(
            "transfer-encoding-chunked.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: 13, bodyChecksum: 0x38D1_3341_4498_7BF4, isKeepAlive: true)),
        // RFC 9112 §7: transfer-coding names are case-insensitive.
        decodes(
            "transfer-encoding-chunked-uppercase.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: hello.length, bodyChecksum: hello.checksum,
                isKeepAlive: true)),
        fails("transfer-encoding-chunked-with-content-length.http", .exactly(.contentLengthWithTransferEncoding)),
        fails("transfer-encoding-content-length-first.http", .exactly(.contentLengthWithTransferEncoding)),
        // HTTPWire sends no TE field, so a server must not apply codings other than chunked (RFC 9112 §7.4);
        // a body it cannot decode is an error, not bytes handed over as if they were the content.
        fails("transfer-encoding-gzip-chunked.http", .exactly(.unsupportedTransferCoding("gzip"))),
        fails("transfer-encoding-gzip-then-chunked-lines.http", .exactly(.unsupportedTransferCoding("gzip"))),
        // RFC 9112 §6.3 rule 4: chunked not final would mean read-until-close of gzip bytes: refused.
        fails("transfer-encoding-chunked-gzip.http", .exactly(.unsupportedTransferCoding("gzip"))),
        fails("transfer-encoding-unknown.http", .exactly(.unsupportedTransferCoding("foo"))),
    ]

    // MARK: Chunked coding (RFC 9112 §7.1)

    static let chunked: [FixtureExpectation] = [
        decodes(
            "chunked-many.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: 5000, bodyChecksum: 0xADDD_8728_619E_5BB5, isKeepAlive: true
            )),
        decodes(
            "chunked-hex-upper.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: 3008, bodyChecksum: 0x213B_8256_63C5_4E25, isKeepAlive: true
            )),
        decodes(
            "chunked-hex-lower.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: 3008, bodyChecksum: 0x2274_6A91_DC00_1EA5, isKeepAlive: true
            )),
        decodes(
            "chunked-leading-zeros.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: hello.length, bodyChecksum: hello.checksum,
                isKeepAlive: true)),
        // RFC 9112 §7.1.1: a recipient ignores unrecognised extensions, quoted strings included.
        decodes(
            "chunked-extensions.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: 11, bodyChecksum: 0x779A_65E7_023C_D2E7, isKeepAlive: true)),
        // RFC 9112 §7.1.1: chunk-ext allows BWS around ";" and "=".
        decodes(
            "chunked-extensions-bws.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: hello.length, bodyChecksum: hello.checksum,
                isKeepAlive: true)),
        // RFC 9112 §7.1.2: trailer fields arrive after the last chunk, whitespace trimmed like any field.
        decodes(
            "chunked-trailers.http",
            ExpectedResponse(
                status: 200, fields: [.value("Trailer", "Checksum, Server-Timing")], framing: .chunked,
                bodyLength: hello.length, bodyChecksum: hello.checksum,
                trailers: [.value("checksum", "sha-256=:abc=:"), .value("Server-Timing", "db;dur=53")],
                trailerCount: 2, isKeepAlive: true)),
        fails("chunked-trailers-too-large.http", .trailersTooLarge(limit: 16 * 1024)),
        fails("chunked-bad-size.http", .invalidChunkSize(previewContaining: "xyz")),
        fails("chunked-empty-size.http", .invalidChunkSize(previewContaining: "")),
        fails("chunked-negative-size.http", .invalidChunkSize(previewContaining: "-5")),
        fails("chunked-size-overflow.http", .chunkSizeOverflow(previewContaining: "1000000000000000")),
        fails("chunked-size-over-int64.http", .chunkSizeOverflow(previewContaining: "8000")),
        fails("chunked-size-line-too-long.http", .chunkLineTooLong(limit: 4 * 1024)),
        fails("chunked-missing-crlf-after-data.http", .missingChunkTerminator),
        fails("chunked-truncated-in-data.http", .exactly(.truncatedBody(expected: nil, received: 3))),
        fails("chunked-truncated-before-last-chunk.http", .exactly(.truncatedBody(expected: nil, received: 5))),
        fails("chunked-truncated-in-trailers.http", .exactly(.truncatedBody(expected: nil, received: 5))),
        // The largest chunk size that fits in 63 bits is valid; the stream then ends inside it.
        fails("chunked-int64-max-truncated.http", .exactly(.truncatedBody(expected: nil, received: 3))),
        // RFC 9112 §7.1.2: trailer lines are field lines, with the same rules.
        fails("chunked-trailer-no-colon.http", .invalidFieldLine(previewContaining: "Not a trailer")),
    ]

    // MARK: No body whatever the fields say (RFC 9112 §6.3 rules 1 and 2)

    static let bodiless: [FixtureExpectation] = [
        decodes("method-head-content-length.http", bodiless(fields: [.value("Content-Length", "1000")]), method: .head),
        decodes("method-head-chunked.http", bodiless(fields: [.value("Transfer-Encoding", "chunked")]), method: .head),
        decodes(
            "method-head-after-100.http",
            ExpectedResponse(
                status: 200, informational: [ExpectedInterim(status: 100)], framing: .none, bodyLength: 0,
                bodyChecksum: emptyChecksum, isKeepAlive: true),
            method: .head),
        decodes("status-204-with-content-length.http", bodiless(status: 204)),
        decodes("status-304-with-content-length.http", bodiless(status: 304, fields: [.value("ETag", "\"v1\"")])),
        decodes("status-204-with-chunked.http", bodiless(status: 204)),
        // Bytes after a 204 are not its body; the layer above sees them in unconsumedBytes.
        decodes("status-204-stray-body.http", bodiless(status: 204, bytesAfterMessage: 5)),
    ]

    // MARK: Interim responses (RFC 9110 §15.2)

    static let interim: [FixtureExpectation] = [
        decodes(
            "interim-100-continue.http",
            ExpectedResponse(
                status: 200, informational: [ExpectedInterim(status: 100)], framing: .contentLength(5),
                bodyLength: hello.length, bodyChecksum: hello.checksum, isKeepAlive: true)),
        decodes(
            "interim-102-processing.http",
            ExpectedResponse(
                status: 201, informational: [ExpectedInterim(status: 102)], framing: .contentLength(2), bodyLength: 2,
                bodyChecksum: 0x08B0_5D07_B556_6BEF, isKeepAlive: true)),
        // RFC 8297: 103 Early Hints carries Link fields the caller may act on before the final response.
        decodes(
            "interim-103-early-hints.http",
            ExpectedResponse(
                status: 200,
                informational: [
                    ExpectedInterim(
                        status: 103,
                        fields: [.values("Link", ["</style.css>; rel=preload; as=style", "</app.js>; rel=preload"])])
                ],
                fields: [.values("Link", ["</style.css>; rel=preload; as=style"])], framing: .contentLength(5),
                bodyLength: hello.length, bodyChecksum: hello.checksum, isKeepAlive: true)),
        decodes(
            "interim-several.http",
            ExpectedResponse(
                status: 200,
                informational: [
                    ExpectedInterim(status: 100), ExpectedInterim(status: 102),
                    ExpectedInterim(status: 103, fields: [.value("Link", "</a.css>; rel=preload")]),
                    ExpectedInterim(status: 103, fields: [.value("Link", "</b.js>; rel=preload")]),
                ],
                framing: .chunked, bodyLength: hello.length, bodyChecksum: hello.checksum, isKeepAlive: true)),
        // RFC 9112 §6.3 rule 1: a 1xx has no content, whatever its Content-Length says.
        decodes(
            "interim-100-with-content-length.http",
            ExpectedResponse(
                status: 200, informational: [ExpectedInterim(status: 100)], framing: .contentLength(5),
                bodyLength: hello.length, bodyChecksum: hello.checksum, isKeepAlive: true)),
        // CodecLimits.maxInformationalResponses: up to 16 interim heads, each reported; the 17th is refused.
        decodes(
            "interim-sixteen.http",
            ExpectedResponse(
                status: 200, informational: Array(repeating: ExpectedInterim(status: 100), count: 16),
                framing: .contentLength(5), bodyLength: hello.length, bodyChecksum: hello.checksum,
                isKeepAlive: true)),
        fails("interim-too-many.http", .exactly(.tooManyInformationalResponses(limit: 16))),
        // HTTPWire never asks for an upgrade, so 101 is refused (RFC 9110 §15.2.2).
        fails("interim-101-switching-protocols.http", .exactly(.unexpectedUpgrade)),
    ]

    // MARK: Read until close (RFC 9112 §6.3 rule 8) and persistence (RFC 9112 §9.3)

    static let persistence: [FixtureExpectation] = [
        decodes(
            "until-close-http11.http",
            ExpectedResponse(
                status: 200, framing: .untilClose, bodyLength: 1000, bodyChecksum: 0x2309_B6C6_5BE5_FA9D,
                isKeepAlive: false)),
        // The body looks like a second response; read until close, it is body all the same.
        decodes(
            "until-close-http10.http",
            ExpectedResponse(
                version: .http1_0, status: 200, framing: .untilClose, bodyLength: 29,
                bodyChecksum: 0x9103_7581_079A_E4D4, isKeepAlive: false)),
        decodes(
            "until-close-empty.http",
            ExpectedResponse(
                status: 200, framing: .untilClose, bodyLength: 0, bodyChecksum: emptyChecksum, isKeepAlive: false)),
        decodes("keep-alive-http10-keep-alive.http", helloResponse(version: .http1_0, keepAlive: true)),
        // A body read until close ends with the connection, whatever Connection says.
        decodes(
            "keep-alive-http10-until-close.http",
            ExpectedResponse(
                version: .http1_0, status: 200, framing: .untilClose, bodyLength: 11,
                bodyChecksum: 0x709D_8420_A79B_E24B, isKeepAlive: false)),
        decodes("keep-alive-http11-close.http", helloResponse(keepAlive: false)),
        // RFC 9112 §9.6: `close` among the Connection options ends the connection, in any case and position.
        decodes("keep-alive-connection-list.http", helloResponse(keepAlive: false)),
        decodes(
            "keep-alive-http11-chunked.http",
            ExpectedResponse(
                status: 200, framing: .chunked, bodyLength: 3, bodyChecksum: 0xE71F_A219_0541_574B, isKeepAlive: true)),
    ]
}

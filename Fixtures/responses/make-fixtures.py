#!/usr/bin/env python3
"""Writes the raw HTTP/1.1 response fixtures of HTTPWire's decoder corpus, byte for byte.

Every fixture is built here from Python byte strings, so the CRLFs, bare LFs, lone CRs, NULs and binary
bodies are exactly what the file says and can be regenerated at any time:

    python3 Fixtures/responses/make-fixtures.py            # (re)write every *.http file beside this script
    python3 Fixtures/responses/make-fixtures.py --summary  # print name, size, body length and FNV-1a 64

The expected outcome of each file lives in Tests/HTTPWireCodecTests/FixtureCatalog.swift; `--summary` prints
the body lengths and checksums written there as literals. The bodies are patterns that contain CR, LF and
"HTTP/1.1" on purpose: a decoder that looked inside a body for framing would trip over them.

A fuzzer crash becomes a fixture by adding a `fixture(...)` line below (bytes from the crash file) and an
entry in the catalog.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CRLF = b"\r\n"
FIXTURES = []  # (name, bytes, body the decoder must deliver or None)


def fixture(name, data, body=None):
    assert name not in {f[0] for f in FIXTURES}, name
    FIXTURES.append((name, data, body))


def head(status_line, *fields, ending=CRLF):
    """A head: the status line, each field line, and the empty line, every line ended by `ending`."""
    lines = [status_line.encode("latin-1") if isinstance(status_line, str) else status_line]
    for field in fields:
        lines.append(field.encode("latin-1") if isinstance(field, str) else field)
    return ending.join(lines) + ending + ending


def pattern(length, seed=0):
    """Deterministic body bytes covering every octet, CR and LF included."""
    return bytes(((index * 31 + seed * 7 + (index >> 8)) % 256) for index in range(length))


def chunked(chunks, last=b"0", trailers=()):
    """A chunked body: each (size line, data) chunk, the last chunk, optional trailer lines, final CRLF."""
    out = b""
    for size_line, data in chunks:
        out += size_line + CRLF + data + CRLF
    out += last + CRLF
    for trailer in trailers:
        out += trailer + CRLF
    return out + CRLF


def hex_chunks(data, sizes, upper=False):
    """Splits `data` into chunks of the given sizes, size lines in lower or upper case hex."""
    chunks, offset = [], 0
    for size in sizes:
        part = data[offset : offset + size]
        offset += size
        text = format(len(part), "X" if upper else "x").encode()
        chunks.append((text, part))
    assert offset == len(data)
    return chunks


def fnv1a64(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


HELLO = b"Hello, world!"

# MARK: Status lines (RFC 9112 §4)

fixture("status-http11-ok", head("HTTP/1.1 200 OK", "Content-Length: 13", "Content-Type: text/plain") + HELLO, HELLO)
fixture("status-http10-ok", head("HTTP/1.0 200 OK", "Content-Length: 13") + HELLO, HELLO)
fixture("status-no-reason", head("HTTP/1.1 200", "Content-Length: 13") + HELLO, HELLO)
fixture("status-empty-reason", head("HTTP/1.1 404 ", "Content-Length: 9") + b"not found", b"not found")
LONG_REASON = " ".join(["Very Long Reason Phrase"] * 40)
fixture("status-long-reason", head("HTTP/1.1 503 " + LONG_REASON, "Content-Length: 0"), b"")
fixture("status-reason-with-obs-text", head(b"HTTP/1.1 200 Tr\xe8s Bien", "Content-Length: 2") + b"ok", b"ok")
fixture("status-unregistered-code", head("HTTP/1.1 599 Custom Failure", "Content-Length: 4") + b"oops", b"oops")
fixture("status-garbage", b"Welcome to the mail server ready\r\n\r\n")
fixture("status-lowercase-http", head("http/1.1 200 OK", "Content-Length: 0"))
fixture("status-two-digit-code", head("HTTP/1.1 20 OK", "Content-Length: 0"))
fixture("status-four-digit-code", head("HTTP/1.1 2000 OK", "Content-Length: 0"))
fixture("status-letters-in-code", head("HTTP/1.1 2x0 OK", "Content-Length: 0"))
# A TLS alert (handshake_failure), what a TLS server may send to a client that speaks plain text to it.
fixture("status-tls-alert", bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]))
# The start of a TLS ServerHello record.
fixture("status-tls-handshake", bytes([0x16, 0x03, 0x03, 0x00, 0x5A, 0x02, 0x00, 0x00, 0x56, 0x03, 0x03]) + pattern(80, 9))
fixture("status-http2-preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
# What an HTTP/2-only server sends first: a SETTINGS frame.
fixture("status-http2-settings-frame", bytes([0, 0, 0x12, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0x64, 0, 4, 0, 1, 0, 0]))
fixture("status-http20-version", head("HTTP/2.0 200 OK", "Content-Length: 0"))
fixture("status-http30-version", head("HTTP/3.0 200 OK", "Content-Length: 0"))

# MARK: Field lines (RFC 9112 §5, RFC 9110 §5)

fixture(
    "fields-duplicates",
    head("HTTP/1.1 200 OK", "Set-Cookie: a=1", "Content-Length: 2", "Set-Cookie: b=2", "Vary: Accept", "Vary: Origin")
    + b"ok",
    b"ok",
)
fixture(
    "fields-case",
    head("HTTP/1.1 200 OK", "CONTENT-LENGTH: 4", "content-type: text/plain", "X-MiXeD-CaSe: Value Kept") + b"case",
    b"case",
)
fixture(
    "fields-whitespace-trimmed",
    head("HTTP/1.1 200 OK", "Content-Length:4", "X-Padded: \t  inner  spaces kept \t ", "X-Tab:\tv") + b"trim",
    b"trim",
)
fixture("fields-empty-value", head("HTTP/1.1 200 OK", "X-Empty:", "X-Blank:   ", "Content-Length: 1") + b"e", b"e")
fixture(
    "fields-obs-fold",
    head("HTTP/1.1 200 OK", "X-Folded: first", " second", "X-Multi: a", "\tb", "  c", "Content-Length: 4") + b"fold",
    b"fold",
)
fixture(
    "fields-bare-lf",
    head("HTTP/1.1 200 OK", "Content-Length: 5", "X-Line: lf only", ending=b"\n") + b"hello",
    b"hello",
)
fixture(
    "fields-mixed-line-endings",
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\nX-A: crlf\r\nX-B: lf\n\r\nhello",
    b"hello",
)
fixture("fields-no-colon", head("HTTP/1.1 200 OK", "Content-Length: 0", "This line has no colon"))
fixture("fields-space-before-colon", head("HTTP/1.1 200 OK", "Content-Length : 5") + b"hello")
fixture("fields-tab-before-colon", head("HTTP/1.1 200 OK", "Transfer-Encoding\t: chunked", "Content-Length: 5") + b"hello")
fixture("fields-empty-name", head("HTTP/1.1 200 OK", ": no name", "Content-Length: 0"))
fixture("fields-name-not-token", head("HTTP/1.1 200 OK", "X(Bad): 1", "Content-Length: 0"))
fixture("fields-nul-in-value", head("HTTP/1.1 200 OK", b"X-Nul: a\x00b", "Content-Length: 0"))
fixture("fields-lone-cr-in-value", head("HTTP/1.1 200 OK", b"X-Cr: a\rContent-Length: 99", "Content-Length: 0"))
fixture("fields-lone-cr-line-end", b"HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n")
fixture(
    "fields-obs-text",
    head("HTTP/1.1 200 OK", "X-Utf8: caf\u00e9".encode("utf-8"), b"X-Latin1: caf\xe9", "Content-Length: 3") + b"obs",
    b"obs",
)
fixture("fields-whitespace-before-first", head("HTTP/1.1 200 OK", " Content-Length: 5", "Content-Length: 0"))
MANY_FIELDS = [f"X-Field-{index:03}: value {index}" for index in range(100)]
COOKIE = "Set-Cookie: session=" + "c" * (16 * 1024)
fixture(
    "fields-hundred-and-big-cookie",
    head("HTTP/1.1 200 OK", *MANY_FIELDS, COOKIE, "Content-Length: 5") + b"roomy",
    b"roomy",
)
fixture(
    "fields-too-many",
    head("HTTP/1.1 200 OK", *[f"X-F{index}: v" for index in range(256)], "Content-Length: 0"),
)

# MARK: Head limits and truncation

fixture("head-too-large", head("HTTP/1.1 200 OK", "X-Huge: " + "h" * (70 * 1024), "Content-Length: 0"))
fixture("head-endless-status-line", b"HTTP/1.1 200 " + b"r" * (70 * 1024))
fixture("head-truncated", b"HTTP/1.1 200 OK\r\nContent-Type: text/pla")
fixture("head-truncated-before-empty-line", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n")
fixture("empty", b"")

# MARK: Content-Length (RFC 9110 §8.6, RFC 9112 §6.3 rules 5 and 6)

BINARY = pattern(256, 1)
fixture("content-length-binary-body", head("HTTP/1.1 200 OK", "Content-Length: 256") + BINARY, BINARY)
fixture("content-length-zero", head("HTTP/1.1 200 OK", "Content-Length: 0"), b"")
fixture("content-length-leading-zeros", head("HTTP/1.1 200 OK", "Content-Length: 0005") + b"hello", b"hello")
fixture(
    "content-length-identical-lines",
    head("HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 5") + b"hello",
    b"hello",
)
fixture("content-length-identical-list", head("HTTP/1.1 200 OK", "Content-Length: 5, 5") + b"hello", b"hello")
fixture(
    "content-length-conflict-lines",
    head("HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 6") + b"hello!",
)
fixture("content-length-conflict-list", head("HTTP/1.1 200 OK", "Content-Length: 5, 6") + b"hello!")
fixture("content-length-non-numeric", head("HTTP/1.1 200 OK", "Content-Length: abc"))
fixture("content-length-negative", head("HTTP/1.1 200 OK", "Content-Length: -5") + b"hello")
fixture("content-length-plus-sign", head("HTTP/1.1 200 OK", "Content-Length: +5") + b"hello")
fixture("content-length-empty", head("HTTP/1.1 200 OK", "Content-Length:") + b"hello")
fixture("content-length-overflow", head("HTTP/1.1 200 OK", "Content-Length: 99999999999999999999") + b"hello")
fixture("content-length-int64-max-truncated", head("HTTP/1.1 200 OK", "Content-Length: 9223372036854775807") + b"abc")
fixture("content-length-truncated-body", head("HTTP/1.1 200 OK", "Content-Length: 10") + b"0123")
fixture(
    "content-length-then-next-response",
    head("HTTP/1.1 200 OK", "Content-Length: 5") + b"hello" + head("HTTP/1.1 200 OK", "Content-Length: 5") + b"world",
    b"hello",
)

# MARK: Transfer-Encoding (RFC 9112 §6.1, §6.3 rules 3 and 4)

fixture(
    "transfer-encoding-chunked",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + chunked([(b"d", HELLO)]),
    HELLO,
)
fixture(
    "transfer-encoding-chunked-uppercase",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: CHUNKED") + chunked([(b"5", b"hello")]),
    b"hello",
)
fixture(
    "transfer-encoding-chunked-with-content-length",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Content-Length: 5") + chunked([(b"5", b"hello")]),
)
fixture(
    "transfer-encoding-content-length-first",
    head("HTTP/1.1 200 OK", "Content-Length: 20", "Transfer-Encoding: chunked") + chunked([(b"5", b"hello")]),
)
fixture(
    "transfer-encoding-gzip-chunked",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: gzip, chunked") + chunked([(b"5", b"\x1f\x8b\x08\x00\x00")]),
)
fixture(
    "transfer-encoding-gzip-then-chunked-lines",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: gzip", "Transfer-Encoding: chunked")
    + chunked([(b"5", b"\x1f\x8b\x08\x00\x00")]),
)
fixture(
    "transfer-encoding-chunked-gzip",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked, gzip") + b"\x1f\x8b\x08\x00\x00",
)
fixture("transfer-encoding-unknown", head("HTTP/1.1 200 OK", "Transfer-Encoding: foo") + b"hello")

# MARK: Chunked bodies (RFC 9112 §7.1)

MANY = pattern(5000, 2)
MANY_SIZES = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 821]
fixture(
    "chunked-many",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + chunked(hex_chunks(MANY, MANY_SIZES)),
    MANY,
)
UPPER = pattern(3008, 3)
fixture(
    "chunked-hex-upper",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + chunked(hex_chunks(UPPER, [0xABC, 0x1A, 0xEA], upper=True)),
    UPPER,
)
LOWER = pattern(3008, 4)
fixture(
    "chunked-hex-lower",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + chunked(hex_chunks(LOWER, [0xabc, 0x1a, 0xea])),
    LOWER,
)
fixture(
    "chunked-leading-zeros",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + chunked([(b"0005", b"hello")], last=b"000"),
    b"hello",
)
fixture(
    "chunked-extensions",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked")
    + chunked([(b"5;name=value;flag", b"hello"), (b'6;q="a;b\\"c"', b" world")], last=b"0;last=yes"),
    b"hello world",
)
fixture(
    "chunked-extensions-bws",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + chunked([(b"5 ; name = value", b"hello")]),
    b"hello",
)
fixture(
    "chunked-trailers",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Trailer: Checksum, Server-Timing")
    + chunked([(b"5", b"hello")], trailers=(b"Checksum: sha-256=:abc=:", b"Server-Timing:  db;dur=53  ")),
    b"hello",
)
fixture(
    "chunked-trailers-too-large",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked")
    + chunked([(b"5", b"hello")], trailers=[b"X-Trailer-%03d: %s" % (index, b"t" * 200) for index in range(100)]),
)
fixture("chunked-bad-size", head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"xyz\r\nhello\r\n0\r\n\r\n")
fixture("chunked-empty-size", head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"\r\nhello\r\n0\r\n\r\n")
fixture("chunked-negative-size", head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"-5\r\nhello\r\n0\r\n\r\n")
fixture(
    "chunked-size-overflow",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"10000000000000005\r\nhello\r\n0\r\n\r\n",
)
fixture(
    "chunked-size-over-int64",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"8000000000000000\r\nhello\r\n0\r\n\r\n",
)
fixture(
    "chunked-size-line-too-long",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"5;ext=" + b"e" * 5000 + b"\r\nhello\r\n0\r\n\r\n",
)
fixture(
    "chunked-missing-crlf-after-data",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"5\r\nhelloXX\r\n0\r\n\r\n",
)
fixture("chunked-truncated-in-data", head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"5\r\nhel")
fixture(
    "chunked-truncated-before-last-chunk",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"5\r\nhello\r\n",
)
fixture(
    "chunked-truncated-in-trailers",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"5\r\nhello\r\n0\r\nX-Trailer: y",
)

# MARK: Responses without a body (RFC 9112 §6.3 rules 1 and 2)

fixture("method-head-content-length", head("HTTP/1.1 200 OK", "Content-Length: 1000", "Content-Type: text/html"))
fixture("method-head-chunked", head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked"))
fixture("status-204-with-content-length", head("HTTP/1.1 204 No Content", "Content-Length: 5"))
fixture("status-304-with-content-length", head("HTTP/1.1 304 Not Modified", "Content-Length: 1000", 'ETag: "v1"'))
fixture("status-204-with-chunked", head("HTTP/1.1 204 No Content", "Transfer-Encoding: chunked"))
# A server that sends bytes after a 204 anyway: they are not this response's body.
fixture("status-204-stray-body", head("HTTP/1.1 204 No Content", "Content-Length: 5") + b"stray")

# MARK: Interim responses (RFC 9110 §15.2)

fixture(
    "interim-100-continue",
    head("HTTP/1.1 100 Continue") + head("HTTP/1.1 200 OK", "Content-Length: 5") + b"hello",
    b"hello",
)
fixture(
    "interim-102-processing",
    head("HTTP/1.1 102 Processing") + head("HTTP/1.1 201 Created", "Content-Length: 2") + b"ok",
    b"ok",
)
fixture(
    "interim-103-early-hints",
    head("HTTP/1.1 103 Early Hints", "Link: </style.css>; rel=preload; as=style", "Link: </app.js>; rel=preload")
    + head("HTTP/1.1 200 OK", "Content-Length: 5", "Link: </style.css>; rel=preload; as=style")
    + b"hello",
    b"hello",
)
fixture(
    "interim-several",
    head("HTTP/1.1 100 Continue")
    + head("HTTP/1.1 102 Processing")
    + head("HTTP/1.1 103 Early Hints", "Link: </a.css>; rel=preload")
    + head("HTTP/1.1 103 Early Hints", "Link: </b.js>; rel=preload")
    + head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked")
    + chunked([(b"5", b"hello")]),
    b"hello",
)
fixture(
    "interim-100-with-content-length",
    head("HTTP/1.1 100 Continue", "Content-Length: 5") + head("HTTP/1.1 200 OK", "Content-Length: 5") + b"hello",
    b"hello",
)
# CodecLimits.maxInformationalResponses (16): sixteen interim heads are fine, a seventeenth is refused.
fixture(
    "interim-sixteen",
    head("HTTP/1.1 100 Continue") * 16 + head("HTTP/1.1 200 OK", "Content-Length: 5") + b"hello",
    b"hello",
)
fixture(
    "interim-too-many",
    head("HTTP/1.1 103 Early Hints", "Link: </a.css>; rel=preload") * 17
    + head("HTTP/1.1 200 OK", "Content-Length: 5")
    + b"hello",
)
fixture(
    "interim-101-switching-protocols",
    head("HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade") + b"\x81\x05hello",
)

# MARK: Read until close (RFC 9112 §6.3 rule 8) and keep-alive (RFC 9112 §9.3)

CLOSE_BODY = pattern(1000, 5)
fixture("until-close-http11", head("HTTP/1.1 200 OK", "Content-Type: application/octet-stream") + CLOSE_BODY, CLOSE_BODY)
fixture("until-close-http10", head("HTTP/1.0 200 OK") + b"HTTP/1.1 200 OK\r\n\r\nnot a head", b"HTTP/1.1 200 OK\r\n\r\nnot a head")
fixture("until-close-empty", head("HTTP/1.1 200 OK", "Server: test"), b"")
fixture(
    "keep-alive-http10-keep-alive",
    head("HTTP/1.0 200 OK", "Connection: keep-alive", "Content-Length: 5") + b"hello",
    b"hello",
)
fixture("keep-alive-http11-close", head("HTTP/1.1 200 OK", "Connection: close", "Content-Length: 5") + b"hello", b"hello")
fixture(
    "keep-alive-connection-list",
    head("HTTP/1.1 200 OK", "Connection: Keep-Alive", "Connection: upgrade, CLOSE", "Content-Length: 5") + b"hello",
    b"hello",
)
fixture(
    "keep-alive-http11-chunked",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Connection: keep-alive") + chunked([(b"3", b"abc")]),
    b"abc",
)


# MARK: Boundaries and combinations

# A head of exactly CodecLimits.maxHeadBytes (status line, fields, empty line) fits; one byte more does not.
AT_LIMIT_PREFIX = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: "
AT_LIMIT_PAD = 64 * 1024 - len(AT_LIMIT_PREFIX) - len(b"\r\n\r\n")
fixture("head-exactly-at-limit", AT_LIMIT_PREFIX + b"p" * AT_LIMIT_PAD + b"\r\n\r\nok", b"ok")
fixture("head-one-over-limit", AT_LIMIT_PREFIX + b"p" * (AT_LIMIT_PAD + 1) + b"\r\n\r\nok")
fixture(
    "fields-exactly-at-limit",
    head("HTTP/1.1 200 OK", *[f"X-F{index}: v" for index in range(255)], "Content-Length: 2") + b"ok",
    b"ok",
)
fixture("content-length-list-whitespace", head("HTTP/1.1 200 OK", "Content-Length: 5 ,\t5") + b"hello", b"hello")
fixture(
    "chunked-int64-max-truncated",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"7fffffffffffffff\r\nabc",
)
fixture(
    "chunked-trailer-no-colon",
    head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + b"5\r\nhello\r\n0\r\nNot a trailer\r\n\r\n",
)
fixture(
    "method-head-after-100",
    head("HTTP/1.1 100 Continue") + head("HTTP/1.1 200 OK", "Content-Length: 5"),
)
fixture("keep-alive-http10-until-close", head("HTTP/1.0 200 OK", "Connection: keep-alive") + b"until close", b"until close")


# MARK: Found by the fuzzer (Tests/Fuzz/fuzz.sh ResponseDecoder): each crash input, byte for byte

# A complete "head" shorter than the 8 bytes of "HTTP/1.x": decoded whole it is an invalid status line; fed one
# byte at a time it used to end before the early status-line check and fail as a bare CR instead.
fixture("fuzz-short-head-bare-cr", bytes.fromhex("300d0d0a0d0affff1d0a"))


def main():
    if "--summary" in sys.argv:
        for name, data, body in FIXTURES:
            if body is None:
                print(f"{name}.http  {len(data)} bytes")
            else:
                print(f"{name}.http  {len(data)} bytes  body {len(body)}  fnv 0x{fnv1a64(body):016X}")
        print(f"{len(FIXTURES)} fixtures")
        return
    for stale in os.listdir(HERE):
        if stale.endswith(".http"):
            os.remove(os.path.join(HERE, stale))
    for name, data, _ in FIXTURES:
        with open(os.path.join(HERE, name + ".http"), "wb") as file:
            file.write(data)
    print(f"wrote {len(FIXTURES)} fixtures to {HERE}")


if __name__ == "__main__":
    main()

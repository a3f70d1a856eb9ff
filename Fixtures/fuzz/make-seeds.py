#!/usr/bin/env python3
"""Writes the seed corpora of HTTPWire's fuzz targets, one folder per target, byte for byte.

    python3 Fixtures/fuzz/make-seeds.py    # (re)write every seed folder beside this script

Each folder is named after its target in Tests/Fuzz/Targets and holds small files: one valid example of
every form the parser knows, the edge cases its tests name, and a few near-misses, so libFuzzer starts from
inputs that reach deep into the grammar instead of guessing "HTTP/1.1" a byte at a time. The response
decoder is seeded from Fixtures/responses instead. Seeds are written here rather than by hand because most
must not end in a newline: a date or a range with a trailing LF is a different, invalid value.

Targets that take two values read them from one input, split at the first LF: TargetURL (a base URL, then
a reference to resolve against it), ByteRange (a Range value, then a Content-Range value). HTTPDate reads a
date; the clock for two-digit years comes from the input's hash.

A fuzzer failure of one of these targets becomes a seed too: add a `seed(...)` line under "Found by the
fuzzer" (the bytes of the crash file), so every `make fuzz` replays it, and a test in
Tests/HTTPWireCodecTests/FuzzRegressionTests.swift states what the parser must answer.
"""

import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = {}  # target -> list of (name, bytes)


def seed(target, name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    names = SEEDS.setdefault(target, [])
    assert name not in {n for n, _ in names}, (target, name)
    names.append((name, data))


CRLF = "\r\n"


def request(line, *fields, body=""):
    return line + CRLF + "".join(f + CRLF for f in fields) + CRLF + body


# MARK: RequestDecoder (RFC 9112 §2-§7): raw bytes a client sends on one connection

R = "RequestDecoder"
seed(R, "get.http", request("GET /a?b=c HTTP/1.1", "Host: example.com", "Accept: */*"))
seed(R, "get-http10.http", request("GET / HTTP/1.0", "Connection: keep-alive"))
seed(R, "head-close.http", request("HEAD /x HTTP/1.1", "Host: h", "Connection: close"))
seed(R, "post-content-length.http", request("POST /up HTTP/1.1", "Host: h", "Content-Length: 11", body="hello world"))
seed(R, "post-leading-zeros.http", request("POST /up HTTP/1.1", "Content-Length: 005", body="hello"))
seed(R, "post-length-list.http", request("POST /up HTTP/1.1", "Content-Length: 5, 5", body="hello"))
seed(R, "post-length-conflict.http", request("POST /up HTTP/1.1", "Content-Length: 5", "Content-Length: 6", body="hello!"))
seed(
    R,
    "put-chunked-trailers.http",
    request("PUT /up HTTP/1.1", "Transfer-Encoding: chunked", body="3\r\nabc\r\n5;ext=1\r\nhello\r\n0\r\nDigest: x\r\n\r\n"),
)
seed(R, "chunked-and-length.http", request("POST / HTTP/1.1", "Content-Length: 3", "Transfer-Encoding: chunked", body="0\r\n\r\n"))
seed(R, "transfer-encoding-gzip.http", request("POST / HTTP/1.1", "Transfer-Encoding: gzip, chunked", body="0\r\n\r\n"))
seed(R, "transfer-encoding-identity.http", request("POST / HTTP/1.1", "Transfer-Encoding: identity"))
seed(
    R,
    "pipelined.http",
    request("GET /1 HTTP/1.1", "Host: h") + request("POST /2 HTTP/1.1", "Content-Length: 2", body="ok") + request("GET /3 HTTP/1.1"),
)
seed(R, "leading-empty-lines.http", "\r\n\n" + request("GET / HTTP/1.1"))
seed(R, "bare-lf.http", "GET / HTTP/1.1\nHost: h\nX: y\n\n")
seed(R, "obs-fold.http", request("GET / HTTP/1.1", "X-Folded: a", " b"))
seed(R, "bare-cr.http", request("GET / HTTP/1.1", "X: a\rb"))
seed(R, "nul-in-value.http", request("GET / HTTP/1.1", "X: a\x00b"))
seed(R, "space-before-colon.http", request("GET / HTTP/1.1", "Content-Length : 5"))
seed(R, "two-spaces.http", request("GET  / HTTP/1.1"))
seed(R, "absolute-form.http", request("GET http://example.com:8080/a?b HTTP/1.1", "Host: example.com:8080"))
seed(R, "authority-form.http", request("CONNECT example.com:443 HTTP/1.1", "Host: example.com:443"))
seed(R, "asterisk-form.http", request("OPTIONS * HTTP/1.1", "Host: h"))
seed(R, "http2-preface.http", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
seed(R, "http11-minor-9.http", request("GET / HTTP/1.9"))
seed(R, "control-byte-in-value.http", request("GET / HTTP/1.1", "X: a\x01b\x7f"))
seed(R, "obs-text.http", b"GET / HTTP/1.1\r\nX-Latin1: caf\xe9\r\nX-Utf8: caf\xc3\xa9\r\n\r\n")
seed(R, "chunk-size-overflow.http", request("POST / HTTP/1.1", "Transfer-Encoding: chunked", body="8000000000000000\r\n"))
seed(R, "truncated-body.http", request("POST / HTTP/1.1", "Content-Length: 10", body="short"))
seed(R, "truncated-head.http", "GET / HTTP/1.1\r\nHost: h\r\n")

# MARK: TargetURL and reference resolution (RFC 3986, RFC 9110 §4.2, §10.2.2): "base\nreference"

U = "TargetURL"
BASE = "http://a/b/c/d;p?q"
for index, reference in enumerate(
    [
        "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g?y#s", ";x", "", ".", "..", "../g", "../../../g",
        "/./g", "/../g", "g.", ".g", "g..", "./../g", "g/./h", "g;x=1/../y", "http:g", "https://other:8443/x",
        "//[::1]:8080/p", "mailto:x@y", "caf\u00e9 menu?q=\u4e2d", "%2e%2E/x", "a%zz%4", "\t /spaced \r\n",
    ]
):
    seed(U, "resolve-%02d" % index, BASE + "\n" + reference)
for index, url in enumerate(
    [
        "HTTP://Example.COM/Path", "http://example.com", "https://example.com:443/a", "http://example.com:080/a",
        "http://h/a/./b/../c?x=1#f", "http://192.168.0.1:8080/", "http://[::1]:8080/x",
        "http://[2001:DB8:0:0:0:0:0:1]/", "http://[::ffff:192.0.2.1]/", "http://[1:0:0:2:0:0:0:3]/",
        "http://my_host.example./", "http://127.1/", "http://0x7f.0.0.1/", "http://010.0.0.1/",
        "http://user:pass@h/", "http://h:65536/", "http://h:0/", "http://[fe80::1%25eth0]/", "ftp://h/",
        "http:/h", "http://caf\u00e9.example/", "http://xn--caf-dma.example/r%C3%A9sum%C3%A9.pdf",
        "http://h/%2F%2e%2E/..%2f", "http://h/a b?c d&e=\u00e9#x",
    ]
):
    seed(U, "url-%02d" % index, url)

# MARK: PercentEncoding (RFC 3986 §2): any text

P = "PercentEncoding"
for index, text in enumerate(
    [
        "/caf\u00e9 menu", "a+b & c", "%20", "%2", "%", "%zz", "%C3%A9", "100%", "/a/b?c=d&e", "\u4e2d\u6587",
        "\U0001F600", "~-._", "!$&'()*+,;=:@/?#[]", "\x00\x01\x7f", "%25%2525", "\ufffd",
    ]
):
    seed(P, "text-%02d" % index, text)
seed(P, "invalid-utf8", b"caf\xe9 \xff\xfe %\xc3")

# MARK: HTTPDate (RFC 9110 §5.6.7): one field value

D = "HTTPDate"
for index, date in enumerate(
    [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Fri, 31 Dec 9999 23:59:60 GMT",
        "Thu, 29 Feb 2024 12:00:00 GMT", "Sat, 29 Feb 2025 12:00:00 GMT", "Tue, 31 Dec 2024 23:59:60 GMT",
        "Wednesday, 01-Jan-76 00:00:00 GMT", "Monday, 01-Jan-77 00:00:00 GMT", "Wed Jan 11 09:00:00 2023",
        "Mon, 01 Jan 0001 00:00:00 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 31 Apr 1994 08:49:37 GMT",
        "tomorrow", "Wednesday, 31-Dec-99 23:59:60 GMT",
    ]
):
    seed(D, "date-%02d" % index, date)

# MARK: ByteRange (RFC 9110 §14): "Range value\nContent-Range value"

B = "ByteRange"
for index, pair in enumerate(
    [
        ("bytes=0-499", "bytes 0-499/1000"), ("bytes=500-", "bytes 500-999/1000"), ("bytes=-500", "bytes 500-999/*"),
        ("bytes=0-0,-1", "bytes */1000"), ("BYTES = 1-2", "bytes 0-0/1"), ("items=0-9", "items 0-9/10"),
        ("bytes=", "bytes 5-4/10"), ("bytes=5-4", "bytes 0-9/9"), ("bytes=,,0-1,", "bytes 0-9223372036854775806/*"),
        ("bytes=9223372036854775807-", "bytes 0-9223372036854775806/1"), ("bytes=-0", "bytes */0"),
        ("bytes=18446744073709551616-", "bytes */-1"), ("bytes= 0 - 1 ", "bytes 0-1/2 "), ("b(tes=0-1", "bytes 1-2/x"),
    ]
):
    seed(B, "range-%02d" % index, pair[0] + "\n" + pair[1])

# MARK: ContentDisposition (RFC 6266, RFC 8187): one field value

C = "ContentDisposition"
for index, value in enumerate(
    [
        'attachment; filename="report.pdf"', "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf",
        "attachment; filename=\"fallback.txt\"; filename*=utf-8'en'na%C3%AFve.txt", "inline",
        "attachment; filename=my file.txt", 'attachment; filename="../../etc/passwd"', 'attachment; filename=".bashrc"',
        "attachment; filename*=ISO-8859-1''caf%E9.txt", "attachment; filename*=KOI8-R''x", 'attachment; filename="a\\"b"',
        'attachment; filename="unterminated', "attachment; filename=\"\u202egpj.exe\"", "attachment;", "; filename=x",
        'attachment; filename="' + "a" * 300 + '.tar.gz"', "attachment; FILENAME=Upper.TXT; filename=second",
        "attachment; filename*=UTF-8''%ff%fe", 'attachment; filename="..\\\\windows\\\\system32"',
    ]
):
    seed(C, "value-%02d" % index, value)

# MARK: MediaType (RFC 9110 §8.3.1): one Content-Type value

M = "MediaType"
for index, value in enumerate(
    [
        "application/json", "text/plain; charset=utf-8", "multipart/form-data; boundary=----x", "image/svg+xml",
        "text/plain\r\nX-Evil: 1", "text/ plain", "text/plain ", "/plain", "text/", "text", 'text/plain; a="b;c"',
        "photo.PNG", "archive.tar.gz", ".bashrc", "noextension",
    ]
):
    seed(M, "value-%02d" % index, value)

# MARK: ResumeRecord: the content of a .part.resume file

S = "ResumeRecord"
RECORD = "httpwire-resume 1\nurl: https://example.test/big.iso\n"
seed(S, "minimal", RECORD + "committed-bytes: 0\n")
seed(
    S,
    "full",
    RECORD + 'etag: W/"v7"\nlast-modified: Sun, 06 Nov 1994 08:49:37 GMT\nexpected-length: 4000000\ncommitted-bytes: 1048576\n',
)
seed(S, "reordered-leading-zeros", "httpwire-resume 1\ncommitted-bytes: 007\nexpected-length: 0010\nurl: http://h/x\n")
seed(S, "cut-short", RECORD + "committed-bytes: 10")
seed(S, "beyond-expected", RECORD + "expected-length: 5\ncommitted-bytes: 6\n")
seed(S, "duplicate-key", RECORD + "url: http://other/\ncommitted-bytes: 1\n")
seed(S, "unknown-key", RECORD + "colour: blue\ncommitted-bytes: 1\n")
seed(S, "version-2", "httpwire-resume 2\nurl: http://h/\ncommitted-bytes: 1\n")
seed(S, "nineteen-digits", RECORD + "committed-bytes: 9223372036854775807\n")
seed(S, "crlf", "httpwire-resume 1\r\nurl: http://h/\r\ncommitted-bytes: 1\r\n")
seed(S, "no-space", RECORD + "committed-bytes:1\n")
seed(S, "not-utf8", b"httpwire-resume 1\nurl: http://h/caf\xe9\ncommitted-bytes: 1\n")

# MARK: DownloadCatalogue: a DownloadManager's downloads.catalogue

CATALOGUE = "DownloadCatalogue"
ITEM = "item: 1\nurl: https://example.test/big.iso\ndestination: /data/big.iso\npriority: 0\nstate: paused\nend\n"
seed(CATALOGUE, "empty", "httpwire-catalogue 1\n")
seed(CATALOGUE, "one", "httpwire-catalogue 1\n" + ITEM)
seed(
    CATALOGUE,
    "completed",
    "httpwire-catalogue 1\n" + ITEM
    + "item: 2\nurl: http://h/a.bin\ndestination: /d/a (1).bin\npriority: -3\nstate: completed\nbytes: 1000000\n"
    + "sha256: " + "ab" * 32 + "\nend\n",
)
seed(CATALOGUE, "torn", "httpwire-catalogue 1\n" + ITEM[:40])
seed(CATALOGUE, "duplicate-item", "httpwire-catalogue 1\n" + ITEM + ITEM)
seed(CATALOGUE, "unknown-state", "httpwire-catalogue 1\n" + ITEM.replace("paused", "running"))
seed(CATALOGUE, "foreign", "httpwire-resume 1\nurl: http://h/\ncommitted-bytes: 1\n")
seed(CATALOGUE, "crlf", ("httpwire-catalogue 1\n" + ITEM).replace("\n", "\r\n"))

# MARK: RetryAfter (RFC 9110 §10.2.3): one field value, delay-seconds or an HTTP-date

A = "RetryAfter"
for index, value in enumerate(
    [
        "120", "0", " 5 ", "\t7", "9223372036854775807", "99999999999999999999999", "-1", "1.5", "+3", "12 s",
        "Sun, 06 Nov 1994 08:49:37 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Wednesday, 01-Jan-76 00:00:00 GMT",
        "Tue Jun  9 12:00:00 2026", "soon", "",
    ]
):
    seed(A, "value-%02d" % index, value)

# MARK: Arguments: wire's command line, words separated by NUL bytes (argv without the program name)

W = "Arguments"
for index, words in enumerate(
    [
        ["get", "-i", "http://x/"], ["get", "--timeout=5", "-H", "Accept: */*", "http://a/", "http://b/"],
        ["head", "--max-redirects", "0", "https://h/"], ["post", "--json", '{"a":1}', "http://h/"],
        ["put", "-d", "@file.txt", "http://h/"], ["upload", "-F", "photo=@a.png;type=image/png;filename=b.png", "http://h/"],
        ["download", "--dir", "/tmp", "--parallel", "4", "--retry", "3", "--sha256", "ab" * 32, "http://h/f"],
        ["serve", "--port", "8080", "--tls", "--log", "."], ["demo"], ["--version"], ["help", "get"], ["get", "--help"],
        ["get", "--", "-not-an-option"], ["get", "--timeout", "nan", "http://h/"], ["get", "--port", "65536"],
        ["get", "-m", "1e309", "http://h/"], ["get", "--parallel=0", "http://h/"], ["frobnicate"], [],
        ["get", "--connect-timeout", "-1", "http://h/"], ["get", "-H", "X:\r\nY: z", "http://h/"],
    ]
):
    seed(W, "words-%02d" % index, "\x00".join(words))

# The curl options of later rounds, each in a seed named for what it reaches.
for name, words in [
    ("clusters-resolve", ["get", "-fsSLo", "out", "--resolve", "h:443:[::1],127.0.0.1", "http://h/"]),
    ("silent-remote", ["get", "-sSO", "--create-dirs", "--fail-with-body", "-#", "--http1.1", "--data-raw", "@x", "-G", "u"]),
    ("upload-dump", ["put", "-T", "a.bin", "-A", "", "-e", "r", "--retry", "2", "-D", "-", "http://h/x"]),
    ("unix-socket-get", ["get", "-sS", "--unix-socket", "/run/docker.sock", "http://localhost/version"]),
    ("unix-socket-serve", ["serve", "--unix-socket", "/tmp/s.sock", "--port", "80"]),
    ("digest", ["get", "--digest", "-u", "ada:pw", "--basic", "--digest", "-w", "%{remote_ip}:%{remote_port}", "u"]),
    ("connect-to", ["get", "--connect-to", "[::1]:443::8443", "--connect-to", "::h:", "-4", "-Z", "-r", "0-9,-5", "u"]),
]:
    seed(W, "words-" + name, "\x00".join(words))

# MARK: AuthenticationChallenge (RFC 9110 §11.6.1): WWW-Authenticate values, one field line per LF
H = "AuthenticationChallenge"
seed(H, "digest-rfc7616", 'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, '
     'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"')
seed(H, "two-in-one-line", 'Digest realm="api, v2", nonce="n\\"1", Basic realm="api"')
seed(H, "token68-and-bare", "Negotiate YIIC+/a==, Bearer\nDIGEST Realm=api ,  ALGORITHM = SHA-256 , nonce=abc, NewAuth")
seed(H, "bearer-error", 'Bearer realm="example", error="invalid_token", error_description="The access token expired"')
seed(H, "unterminated", 'Basic realm="x", Digest nonce="unterminated')
seed(H, "empty-elements", ', ,Basic realm="x",,')
seed(H, "userhash-sess", 'Digest realm="r", nonce="n", qop=auth, algorithm=SHA-512-256-sess, userhash=true, stale=TRUE')

# MARK: CacheControl (RFC 9111 §5.2): Cache-Control values, one field line per LF
CC = "CacheControl"
seed(CC, "response", 'public, max-age=3600, must-revalidate')
seed(CC, "qualified", 'no-cache="Set-Cookie, X-A", private="Authorization", s-maxage=60')
seed(CC, "request", 'max-stale, min-fresh=10, only-if-cached\nno-transform, max-age=0')
seed(CC, "quoted-seconds", 'max-age="5", Max-Age=5, MAX-AGE = 5')
seed(CC, "broken", 'max-age=, =5, max-age=-1, a b, max-age=99999999999999999999999, ,,no-store')
seed(CC, "unterminated", 'private, ext="open')
seed(CC, "escapes", 'ext="a\\"b\\\\c", immutable')

# MARK: CacheEntry: a persistent HTTPCache's .response file (HTTPWire/Cache/CacheEntryFile.swift)
E = "CacheEntry"
seed(E, "full", "httpwire-cache 1\nurl: http://cache.test:8080/a?b=c\nstatus: 200\nreason: OK\nversion: HTTP/1.1\n"
     "request-time: 1781000000\nresponse-time: 1781000002\nvary: accept: a/b,c/d\nvary: accept-language\n"
     "field: Cache-Control: max-age=60\nfield: Date: Sun, 07 Jun 2026 10:13:20 GMT\nfield: Age: 5\n"
     "field: ETag: \"v1\"\nfield: Content-Length: 5\nbody: 5\n\nhello")
seed(E, "bare", "httpwire-cache 1\nurl: https://h/\nstatus: 304\nreason: \nversion: HTTP/1.0\n"
     "request-time: 0\nresponse-time: 0\nbody: 0\n\n")
seed(E, "heuristic", "httpwire-cache 1\nurl: http://h/x\nstatus: 404\nreason: Not Found\nversion: HTTP/1.1\n"
     "request-time: 9223372036854775807\nresponse-time: -9223372036854775808\n"
     "field: Last-Modified: Sunday, 06-Nov-94 08:49:37 GMT\nfield: Expires: 0\nfield: Expires: 1\nbody: 2\n\n\n\n")
# Found by the fuzzer: 0xBA (not UTF-8) in a field value, which a lenient reading turned into U+FFFD.
seed(E, "fuzz-invalid-utf8", b"httpwire-cache 1\nurl: http://h/\nstatus: 200\nreason: OK\nversion: HTTP/1.1\n"
     b"request-time: 1\nresponse-time: 2\nfield: Date: Sun, 07 Jun 2026 10:13\xba20 GMT\nbody: 0\n\n")
seed(E, "cut", "httpwire-cache 1\nurl: http://h/x\nstatus: 200\nreason: OK\nversion: HTTP/1.1\nrequest-time: 1\n")

# MARK: SetCookie (RFC 6265 §5.2): one Set-Cookie field value, as a server controls it
K = "SetCookie"
seed(K, "basic", "SID=31d4d96e407aad42; Path=/; Secure; HttpOnly")
seed(K, "domain", "lang=en-US; Path=/; Domain=.Example.COM; SameSite=Lax")
seed(K, "edge", "a=; Max-Age=99999999999999999999999; Domain=")
seed(K, "empty-name", "=novalue")
seed(K, "expires-asctime", "a=1; Expires=Sun Nov  6 08:49:37 1994")
seed(K, "expires-imf", "a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=60")
seed(K, "expires-js", "a=1; Expires=Sun Nov 06 1994 08:49:37 GMT+0000 (UTC); Max-Age=-1")
seed(K, "expires-rfc850", "a=1; expires=Sunday, 06-Nov-94 08:49:37 GMT")
seed(K, "quoted", 'token="quoted==" ; path = /docs/ ;; secure; unknown=1')


# MARK: Found by the fuzzer: each failure input, byte for byte

# The first ByteRange run: a last position of 2^63 - 1 with an unknown length parsed, and byteCount (last -
# first + 1) trapped. ContentRange now refuses it (RFC 9110 §14.4: the length would be at least 2^63).
seed(B, "fuzz-content-range-last-int64-max", "bytes=9223372036854775807-\nbytes 0-9223372036854775807/*")


# ContentDisposition.sanitizedFileName trims spaces before cutting a name to 255 bytes, so the cut can end in
# spaces and sanitising again changes the name. The fuzzer's input was 400 bytes of noise; this is the same
# failure in a readable form. Fixed: trailing spaces are trimmed after the cut.
seed(C, "fuzz-name-cut-before-trailing-spaces", 'attachment; filename="' + "a" * 250 + " " * 10 + "b" * 10 + '"')
# Found while triaging the one above, and flagged by the same target: spaces, dots, spaces are dropped once
# each, so ". .bashrc" is saved as ".bashrc". Fixed: spaces and dots are dropped in one loop.
seed(C, "fuzz-dot-space-dot-bashrc", 'attachment; filename=". .bashrc"')
# The first 90-second ContentDisposition run: a "/" followed by a combining mark (U+0659 in the fuzzer's 300
# bytes) is one Character, so the split on Characters kept it and the name held a path separator; a "."
# followed by one was not dropped as a leading dot either. Both forms, readable. Fixed: the rules work on
# Unicode scalars.
seed(C, "fuzz-slash-combining-mark", 'attachment; filename="x/\u0659y"')
seed(C, "fuzz-dot-combining-mark", 'attachment; filename=".\u0301bashrc"')
# The first Arguments run after the merge of the transport refactor: an unknown command word with a CR LF in
# it (a dictionary entry spliced into "head") was quoted as it was, so `wire: error: unknown command "…"`
# became two lines. UsageError now escapes every control character of its message.
seed(W, "fuzz-unknown-command-crlf", "heaCONNECT example.com:443 HTTP/1.1\r\nd\x00--max-redirects\x000\x00https://h/")
# make fuzz-long, Arguments after 2.8 million executions: `-c` took "--" as its value, so the help check
# (which looks only before the first "--") missed the -h after it and the parser hit its "cannot happen"
# trap. The parser now answers help itself; ArgumentsTests.helpAfterDashDashValue.
seed(W, "fuzz-help-after-dashdash-value", "upload\x00-c\x00--\x00-h\x00\x00-c\x00;\x00-.c\x00")

# MARK: ContentDecoder: a selector byte (bit 0: 0 gzip, 1 deflate; the rest seed the split), then a body
# The Python-made files of Fixtures/compression (see its README), each behind its coding's selector, plus
# near misses: a bare gzip header, an empty zlib stream, one byte of deflate.
S = "ContentDecoder"
for file, selector in [("python-gzip.gz", 0x20), ("python-members.gz", 0x20), ("python-named.gz", 0x20),
                       ("python-zlib.zz", 0x21), ("python-raw.deflate", 0x21)]:
    with open(os.path.join(HERE, "..", "compression", file), "rb") as source:
        seed(S, file.replace(".", "-") + ".bin", bytes([selector]) + source.read())
seed(S, "gzip-header-only.bin", bytes([0x20, 0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]))
seed(S, "zlib-empty.bin", bytes([0x21, 0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]))
seed(S, "deflate-one-byte.bin", bytes([0x21, 0x78]))

# The first CI run of the SetCookie target: `Domain=..COM`. RFC 6265 §5.2.3 removes one leading dot, so the
# domain is ".com"; the target's property ("no leading dot") was stricter than the RFC. The parser keeps the
# RFC's answer (no host domain-matches ".com", so the jar refuses the cookie); the property now says so.
seed(K, "fuzz-domain-two-leading-dots", "lang=en-US; Pat`=/; DomUS; Pat`=/; Domain=..COM; SameSite=Lax")

# A CI run of the HTTPDate target: "Wednesday, 31-Dec-76 23:59:60 GMT" in 2026 is 2076's last (leap) second,
# which POSIX time makes 2077-01-01 00:00:00. The parser was right (RFC 9110 §5.6.7: 2076 is not more than 50
# years ahead); the target's property took the instant's year for the named day's. Fixed in the target.
seed(D, "fuzz-rfc850-leap-second-at-year-end", "Wednesday, 31-Dec-76 23:59:60 GMT")

# A local 25-second SetCookie run: `path = /` followed by U+073A (a combining mark) in the fuzzer's noise. The
# parser was right (RFC 6265 §5.2.4 looks at the first byte, which is "/"); the target's property compared
# Characters, and "/" with a combining mark is one Character that is not "/". Fixed in the target, which now
# checks bytes. Its sibling, seen while fixing it rather than found by the fuzzer: a domain's lower-casing was
# Unicode's, so "Ä" became "ä"; it is ASCII-only now (a host is ASCII on the wire, an IDN as its A-label).
seed(K, "fuzz-path-slash-combining-mark", 'token==" ; path = /\u073Axre[nown=1')
seed(K, "fuzz-domain-non-ascii-capital", "a=1; Domain=.B\u00C4CKEREI.Example")

# MARK: EventStream (HTML §9.2.6): a text/event-stream body; the first byte picks the event limit (16 + 16n)
EV = "EventStream"
seed(EV, "scores", b"\x10" + b"retry: 3000\nid: 1\nevent: score\ndata: {\"home\": 2,\ndata:  \"away\": 1}\n\n: ping\n\n")
seed(EV, "line-ends", b"\x04" + b"data: a\r\ndata: b\rdata: c\n\r\nid\r\rdata\n\n")
seed(EV, "bom-and-id", b"\x02" + b"\xef\xbb\xbfid: 7\x00x\nid: 8\ndata: \xff\xfe\n\nfoo: bar\nretry: 99999999999999999999\n\n")
seed(EV, "over-limit", b"\x00" + b"data: 0123456789\ndata: 0123456789\n\ndata: ok\n\n")
# Found by the fuzzer: invalid bytes decode to U+FFFD (3 bytes each), so the data's String is longer than the
# bytes the limit counted. The harness's property was wrong, not the parser; the input stays as a seed.
seed(EV, "fuzz-replacement-characters", bytes.fromhex(
    "04646174613a20ffffffffffffffff0000000000ffff000000000000ffffffffffffffffff3a2062"
    "0000000000000000ad20630a0d0a69640d0d646174610a0a"))
seed(EV, "unfinished", b"\x08" + b"event: add\ndata: 1\n\nevent: lonely\n\ndata: cut")


def main():
    for target, seeds in SEEDS.items():
        folder = os.path.join(HERE, target)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for name, data in seeds:
            with open(os.path.join(folder, name), "wb") as file:
                file.write(data)
        print("%-20s %3d seeds" % (target, len(seeds)))


if __name__ == "__main__":
    main()

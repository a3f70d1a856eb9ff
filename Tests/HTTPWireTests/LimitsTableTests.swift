// LimitsTableTests: the Limits table of the Supported HTTP article says what the code does (issue #17 item 5).
//
// The table is read from SupportedHTTP.md and every row's Default cell is compared with the figure
// rendered from the code's own default (`CodecLimits()`, `ClientConfiguration()`, the static limits). A row
// without a check here fails, and so does a check whose row is gone, so a limit added or changed in one
// place and not the other is a red test. Rows whose limit another change is adding carry the placeholder
// "to be filled (#14)" and are listed in `pending`; filling one in means giving it a check below.

import HTTPWireCodec
import Testing

@testable import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct LimitsTableTests {
    /// The rows of the table under "## Limits": first cell (the limit's name) → third cell (its default).
    static func tableRows() throws -> [(limit: String, figure: String)] {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/HTTPWire/HTTPWire.docc/SupportedHTTP.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "## Limits"), "SupportedHTTP.md has no Limits section")
        var rows: [(String, String)] = []
        var isInTable = false
        for line in lines[(start + 1)...] {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("|") else {
                if isInTable { break }
                continue
            }
            isInTable = true
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[0] != "Limit", !cells[0].hasPrefix("---") else { continue }
            rows.append((cells[0], cells[2]))
        }
        return rows
    }

    /// "64 KiB", "32 MiB" or "100 bytes", as the table writes sizes.
    static func size(_ bytes: some BinaryInteger) -> String {
        let value = Int64(bytes)
        if value >= 1 << 30 && value % (1 << 30) == 0 { return "\(value >> 30) GiB" }
        if value >= 1 << 20 && value % (1 << 20) == 0 { return "\(value >> 20) MiB" }
        if value >= 1 << 10 && value % (1 << 10) == 0 { return "\(value >> 10) KiB" }
        return "\(value) bytes"
    }

    /// "60 s" or "250 ms", as the table writes durations.
    static func time(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// The code's figure for each row, rendered as the table must show it.
    static var figures: [String: String] {
        let codec = CodecLimits()
        let configuration = ClientConfiguration()
        let download = DownloadOptions()
        let cookies = CookieJar.Limits()
        let eventsPerSecond = Int(
            1.0
                / (Double(download.progressInterval.components.attoseconds) / 1e18
                    + Double(download.progressInterval.components.seconds)))
        return [
            "Response head (status line and fields)": size(codec.maxHeadBytes),
            "A start line or one field line": size(codec.maxHeadBytes),
            "Field lines in one head": "\(codec.maxFieldCount)",
            "Chunk-size line, extensions included": size(codec.maxChunkLineBytes),
            "Chunk extensions (`5;name=value`), skipped": size(codec.maxChunkLineBytes),
            // A chunk size is parsed into an Int64 (ChunkedDecoder), so the bound is the type's.
            "Chunk size": Int64.max == (1 << 62) - 1 + (1 << 62) ? "2⁶³ − 1 bytes" : "\(Int64.max) bytes",
            "Trailer section": size(codec.maxTrailerBytes),
            "Field lines in one trailer section": "\(codec.maxFieldCount)",
            "Interim (1xx) responses before the final one": "\(codec.maxInformationalResponses)",
            "Body collected into memory by `send`": size(configuration.maxCollectedBodyBytes),
            "One line of a body read with ``ResponseBody/lines(maxLineBytes:)``": size(
                ResponseLines.defaultMaxLineBytes),
            "One server-sent event (its data, or one line of the stream)": size(ServerSentEvents.defaultMaxEventBytes),
            "Event-stream reconnections that fail in a row": "\(ServerSentEvents.Reconnection().maxAttempts)",
            "Wait before an event stream reconnects":
                "\(time(ServerSentEvents.Reconnection().delay)), at most \(time(ServerSentEvents.Reconnection().maxDelay))",
            "Redirects followed": "\(RedirectPolicy().maxRedirects)",
            "Retries asked for by middleware, per request": "\(HTTPClient.maxMiddlewareRetries)",
            "Connections per origin": "\(configuration.pool.maxConnectionsPerOrigin)",
            "Idle connections kept per origin": "\(configuration.pool.maxIdleConnectionsPerOrigin)",
            "Idle connection lifetime": time(configuration.pool.idleTimeout),
            "Connect (DNS, TCP, TLS), per attempt": time(configuration.timeouts.connect),
            "Longest wait for any byte once connected": time(configuration.timeouts.idle),
            "Whole request, redirects included": configuration.timeouts.total.map(time) ?? "none",
            "Wait for `100 Continue`": time(configuration.timeouts.expectContinue),
            // Structural: the machine has one `isResend` flag, and a resend is never resent (ExchangeStateMachineTests).
            "Resends of a request on a stale connection": "1",
            "Download retries": download.retry == nil && configuration.retry.maxRetries == 0
                ? "none (``RetryPolicy/none``)" : "\(configuration.retry.maxRetries)",
            "Download progress events": "\(eventsPerSecond) a second",
            "Download commits (bytes made durable, record written)":
                "\(time(download.commitInterval)) or \(size(download.commitBytes))",
            "Segments in a resume record (`dest.part.resume`)": "\(ResumeRecord.maxSegments)",
            "Download catalogue of a ``DownloadManager``": size(DownloadCatalogue.maxEncodedBytes),
            "Saved file name (`Content-Disposition`)": "\(ContentDisposition.maxFileNameBytes) UTF-8 bytes",
            "One cookie (its `Set-Cookie` value, or name, value, domain and path)":
                "\(cookies.maxBytesPerCookie) bytes (RFC 6265 §6.1's minimum)",
            "Cookies per domain": "\(cookies.maxCookiesPerDomain) (§6.1)",
            "Cookies in one jar": "\(cookies.maxCookies) (§6.1)",
            "Decoded bytes of one gzip or deflate body": size(configuration.contentDecoding.maxDecodedBytes),
            "Decoded bytes per received byte, past the first decoded MiB": "\(configuration.contentDecoding.maxRatio)",
            "Content codings decoded in a row (`gzip, deflate`)": "\(ContentDecoding.maxCodings)",
        ]
    }

    /// Rows another change is adding; their cells say "to be filled (#14)" until it lands. None now.
    static let pending: Set<String> = []

    @Test("every row of the Limits table shows the code's default", .timeLimit(.minutes(1)))
    func rowsMatchTheCode() throws {
        let rows = try Self.tableRows()
        try #require(rows.count >= 20, "the Limits table was not found whole: \(rows.count) rows")
        let figures = Self.figures
        for row in rows {
            if Self.pending.contains(row.limit) {
                #expect(row.figure == "to be filled (#14)", "\(row.limit): filled in — give it a check in `figures`")
                continue
            }
            let expected = try #require(
                figures[row.limit], "no check for the row \"\(row.limit)\": add it to `figures`")
            #expect(row.figure == expected, "\(row.limit): the table says \(row.figure), the code \(expected)")
        }
        let named = Set(rows.map(\.limit))
        for limit in figures.keys.sorted() where !named.contains(limit) {
            Issue.record("the Limits table lost its row \"\(limit)\"")
        }
        for limit in Self.pending.sorted() where !named.contains(limit) {
            Issue.record("the Limits table lost its placeholder row \"\(limit)\"")
        }
    }

    @Test("the renderings are the table's units", .timeLimit(.minutes(1)))
    func renderings() {
        #expect(Self.size(64 * 1024) == "64 KiB")
        #expect(Self.size(Int64(1) << 30) == "1 GiB")
        #expect(Self.size(32 << 20) == "32 MiB")
        #expect(Self.size(1000) == "1000 bytes")
        #expect(Self.time(.seconds(60)) == "60 s")
        #expect(Self.time(.milliseconds(250)) == "250 ms")
    }
}

// SegmentedDownload: one file over several connections — `DownloadOptions.segments` — for a server that
// limits each connection's rate. The other connections join once the first has shown, over
// `DownloadOptions.segmentProbe` (250 ms), that the rest would take it more than a second; a fast server
// keeps one stream. Nothing else changes: the same call, the same events, the same resume after a crash
// (every segment continues from its own count). Example: the public API only.

import HTTPWire

/// Example: a download cut into up to `segments` Range requests that run at once.
package enum SegmentedDownload {
    /// `RunExample segmented-download "http://127.0.0.1:8080/files/big.bin?interval_ms=5" big.bin 4`.
    /// Returns the result; `result.requests` is one per segment (and one per stolen half).
    package static func run(
        client: HTTPClient, url: String, destination: String, segments: Int, expectedSHA256: SHA256Digest? = nil,
        log: (String) -> Void = { print($0) }
    ) async throws -> DownloadResult {
        var options = DownloadOptions()
        options.segments = segments
        options.expectedSHA256 = expectedSHA256  // checked over the whole file, read back once at the end
        let download = client.download(from: url, to: destination, options: options)
        for await event in download.events {
            if case .started(_, let offset, let expected) = event {
                log("writing \(expected.map(String.init) ?? "?") bytes from byte \(offset) on")
            }
        }
        let result = try await download.result()
        log("complete: \(result.bytes) bytes over \(result.requests) requests")
        return result
    }
}

// DownloadWithProgress: a download to a file with its progress and speed, resuming a partial file left by
// an earlier run when the server can prove it unchanged (example: the public API only).

import HTTPWire

/// Example: a download to disk, watched.
package enum DownloadWithProgress {
    /// `RunExample download http://127.0.0.1:8080/bytes/100000000 big.bin`. With `expectedSHA256`, the
    /// finished file is checked before it is renamed into place.
    package static func run(
        client: HTTPClient, url: String, destination: String, expectedSHA256: SHA256Digest? = nil,
        log: (String) -> Void = { print($0) }
    ) async throws -> DownloadResult {
        var options = DownloadOptions()
        options.expectedSHA256 = expectedSHA256
        let download = client.download(from: url, to: destination, options: options)
        var nextQuarter = 1
        for await event in download.events {
            // One line each time the download passes another quarter (one event may pass several).
            guard case .progress(let progress) = event, let fraction = progress.fraction,
                nextQuarter <= 4, fraction >= Double(nextQuarter) / 4
            else { continue }
            // The speed is measured over one-second windows: nil until the first has closed.
            let speed = progress.bytesPerSecond.map { "\(Int($0 / 1024)) KiB/s" } ?? "speed not measured yet"
            log("\(progress.receivedBytes) of \(progress.expectedBytes ?? 0) bytes, \(speed)")
            while nextQuarter <= 4, fraction >= Double(nextQuarter) / 4 { nextQuarter += 1 }
        }
        let result = try await download.result()
        log("saved \(result.location): \(result.bytes) bytes, \(result.resumedFromBytes) of them from before")
        return result
    }
}

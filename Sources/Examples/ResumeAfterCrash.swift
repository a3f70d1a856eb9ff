// ResumeAfterCrash: nothing special to write — a download keeps FILE.part and a resume record on disk, so
// running the same code again after the process was killed continues with Range + If-Range. Try: run it,
// `kill -9` it half-way, run it again (example: the public API only).

import HTTPWire

/// Example: a download that picks up whatever an earlier, killed run left on disk.
package enum ResumeAfterCrash {
    /// `RunExample resume-after-crash "http://127.0.0.1:8080/bytes/50000000?interval_ms=10" file.bin`.
    package static func run(
        client: HTTPClient, url: String, destination: String, options: DownloadOptions = DownloadOptions(),
        log: (String) -> Void = { print($0) }
    ) async throws -> DownloadResult {
        if let stored = await Download.storedProgress(forDestination: destination) {
            log("found \(stored.receivedBytes) bytes from an earlier run")
        }
        var options = options
        if options.retry.maxRetries == 0 {
            options.retry = RetryPolicy(maxRetries: 3)  // a dropped connection resumes from the bytes on disk too
        }
        let download = client.download(from: url, to: destination, options: options)
        for await event in download.events {
            if case .started(_, let offset, _) = event { log("starting at byte \(offset)") }
        }
        let result = try await download.result()
        log("complete: \(result.bytes) bytes, \(result.resumedFromBytes) resumed")
        return result
    }
}

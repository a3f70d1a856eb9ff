// ChangedFile: when the server's file changed since the partial data was received, If-Range makes the
// server send the whole new file (200), and the download starts again instead of splicing old and new
// bytes (RFC 9110 §13.1.5; example: the public API only).

import HTTPWire

/// Example: a download paused while the file on the server changes.
package enum ChangedFile {
    /// `RunExample changed-file URL FILE`: pauses after `pauseAfterBytes`, runs `whilePaused` (the runner
    /// waits for Enter while you replace the file; `wire demo` replaces it on its server), resumes. Returns
    /// whether the download started over.
    package static func run(
        client: HTTPClient, url: String, destination: String, pauseAfterBytes: Int64 = 256 * 1024,
        whilePaused: () async throws -> Void, log: (String) -> Void = { print($0) }
    ) async throws -> (restarted: Bool, result: DownloadResult) {
        let download = client.download(from: url, to: destination)
        var hasPaused = false
        var restarted = false
        for await event in download.events {
            switch event {
            case .progress(let progress) where !hasPaused && progress.receivedBytes >= pauseAfterBytes:
                hasPaused = true
                download.pause()
            case .paused(let progress):
                log("paused at \(progress.receivedBytes) bytes")
                try await whilePaused()
                download.resume()  // Range: bytes=N- with If-Range: the ETag of the first answer
            case .restarted(let cause):
                restarted = true
                log("starting again from byte 0: \(cause)")
            default:
                break
            }
        }
        let result = try await download.result()
        log("\(result.location): \(result.bytes) bytes")
        return (restarted, result)
    }
}

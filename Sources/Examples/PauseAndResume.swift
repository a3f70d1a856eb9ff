// PauseAndResume: pause a running download (its bytes stay on disk, the connection closes) and resume it
// later with a Range request for the rest (example: the public API only).

import HTTPWire

/// Example: pause a download once, then resume it.
package enum PauseAndResume {
    /// `RunExample pause-resume "http://127.0.0.1:8080/bytes/4000000?interval_ms=10&piece=65536" file.bin`:
    /// pauses once `pauseAfterBytes` have arrived, waits `pause`, resumes. Returns where it paused.
    package static func run(
        client: HTTPClient, url: String, destination: String, pauseAfterBytes: Int64 = 1_000_000,
        pause: Duration = .seconds(1), options: DownloadOptions = DownloadOptions(),
        log: (String) -> Void = { print($0) }
    ) async throws -> (pausedAt: Int64, result: DownloadResult) {
        let download = client.download(from: url, to: destination, options: options)
        var hasPaused = false
        var pausedAt: Int64 = 0
        for await event in download.events {
            switch event {
            case .progress(let progress) where !hasPaused && progress.receivedBytes >= pauseAfterBytes:
                hasPaused = true
                download.pause()  // commits what arrived, then closes the connection
            case .paused(let progress):
                pausedAt = progress.receivedBytes
                log("paused at \(progress.receivedBytes) bytes")
                try? await Task.sleep(for: pause)
                download.resume()  // a new GET with Range: bytes=N-
            case .resumed:
                log("resumed")
            default:
                break
            }
        }
        let result = try await download.result()
        log("done after \(result.requests) requests: \(result.bytes) bytes")
        return (pausedAt, result)
    }
}

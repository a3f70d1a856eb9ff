// PauseAndResume: pause a running download (its bytes stay on disk, the connection closes) and resume it
// later with a Range request for the rest.

import HTTPWire

enum PauseAndResume {
    /// `Examples pause-resume "http://127.0.0.1:8080/bytes/4000000?interval_ms=10&piece=65536" file.bin`
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 2 else { return print("usage: pause-resume URL FILE") }
        let client = HTTPClient()
        let download = client.download(from: arguments[0], to: arguments[1])
        var hasPaused = false
        for await event in download.events {
            switch event {
            case .progress(let progress) where !hasPaused && progress.receivedBytes > 1_000_000:
                hasPaused = true
                download.pause()
            case .paused(let progress):
                print("paused at \(progress.receivedBytes) bytes")
                try? await Task.sleep(for: .seconds(1))
                download.resume()
            case .resumed:
                print("resumed")
            default:
                break
            }
        }
        let result = try await download.result()
        print("done after \(result.requests) requests: \(result.bytes) bytes")
        await client.shutdown()
    }
}

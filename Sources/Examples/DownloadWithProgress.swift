// DownloadWithProgress: a download to a file with its progress and speed, resuming a partial file left by
// an earlier run when the server can prove it unchanged.

import HTTPWire

enum DownloadWithProgress {
    /// `Examples download http://127.0.0.1:8080/bytes/100000000 big.bin`
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 2 else { return print("usage: download URL FILE") }
        let client = HTTPClient()
        let download = client.download(from: arguments[0], to: arguments[1])
        for await event in download.events {
            if case .progress(let progress) = event {
                let speed = Int((progress.bytesPerSecond ?? 0) / 1024)
                print("\(progress.receivedBytes) of \(progress.expectedBytes ?? 0) bytes, \(speed) KiB/s")
            }
        }
        let result = try await download.result()
        print("saved \(result.location): \(result.bytes) bytes, \(result.resumedFromBytes) of them from before")
        await client.shutdown()
    }
}

// ResumeAfterCrash: nothing special to write — a download keeps FILE.part and a resume record on disk,
// so running the same program again after it was killed continues with Range + If-Range.
// Try: run it, press Ctrl-C or `kill -9` it half-way, run it again.

import HTTPWire

enum ResumeAfterCrash {
    /// `Examples resume-after-crash "http://127.0.0.1:8080/bytes/50000000?interval_ms=10" file.bin`
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 2 else { return print("usage: resume-after-crash URL FILE") }
        if let stored = await Download.storedProgress(destination: arguments[1]) {
            print("found \(stored.receivedBytes) bytes from an earlier run")
        }
        let client = HTTPClient()
        var options = DownloadOptions()
        options.retry = RetryPolicy(maxRetries: 3)  // a dropped connection resumes from the bytes on disk too
        let download = client.download(from: arguments[0], to: arguments[1], options: options)
        for await event in download.events {
            if case .started(_, let offset, _) = event { print("starting at byte \(offset)") }
        }
        let result = try await download.result()
        print("complete: \(result.bytes) bytes, \(result.resumedFromBytes) resumed")
        await client.shutdown()
    }
}

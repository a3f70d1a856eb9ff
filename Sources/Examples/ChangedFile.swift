// ChangedFile: when the server's file changed since the partial data was received, If-Range makes the
// server send the whole new file (200), and the download starts again instead of splicing old and new.

import HTTPWire

enum ChangedFile {
    /// `Examples changed-file URL FILE`: run it after the file behind URL changed mid-download.
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 2 else { return print("usage: changed-file URL FILE") }
        let client = HTTPClient()
        let download = client.download(from: arguments[0], to: arguments[1])
        for await event in download.events {
            switch event {
            case .started(_, let offset, _): print("resuming at byte \(offset)")
            case .restarted(let cause): print("starting again from byte 0: \(cause)")
            default: break
            }
        }
        let result = try await download.result()
        print("\(result.location): \(result.bytes) bytes")
        await client.shutdown()
    }
}

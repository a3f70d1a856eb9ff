// DeleteDownload: remove everything a download left for a destination — the finished file, the part file
// and its resume record — cancelling a download to it that is still running in this process.

import HTTPWire

enum DeleteDownload {
    /// `Examples delete-download file.bin`
    static func run(_ arguments: [String]) async throws {
        guard let destination = arguments.first else { return print("usage: delete-download FILE") }
        let stored = await Download.storedProgress(destination: destination)
        try await Download.removeData(destination: destination)
        print("removed \(destination) (partial data: \(stored?.receivedBytes ?? 0) bytes)")
    }
}

// DeleteDownload: remove everything a download left for a destination — the finished file, the part file
// and its resume record — cancelling a download to it that is still running in this process (example:
// the public API only).

import HTTPWire

/// Example: delete downloaded data.
package enum DeleteDownload {
    /// `RunExample delete-download file.bin ...`: removes each destination's data.
    package static func run(destinations: [String], log: (String) -> Void = { print($0) }) async throws {
        for destination in destinations {
            let stored = await Download.storedProgress(forDestination: destination)
            try await Download.removeData(forDestination: destination)
            log("removed \(destination) (partial data: \(stored?.receivedBytes ?? 0) bytes)")
        }
    }
}

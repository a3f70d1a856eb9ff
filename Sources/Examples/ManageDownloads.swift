// ManageDownloads: many downloads in one DownloadManager — a queue of two at a time, a progress line for
// all of them, and a catalogue in a directory so that running the same command again (after Ctrl-C or
// kill -9) picks up every item where it was: finished ones are not fetched again (example: the public API
// only).

import HTTPWire

/// Example: a manager with a catalogue, two downloads at a time, aggregate progress.
package enum ManageDownloads {
    /// `RunExample manage-downloads /tmp/catalogue /tmp/out URL...`: adds every URL (saved as
    /// `OUT/N-download.bin`), reports the total as it grows, and returns every item once nothing is queued
    /// or running.
    package static func run(
        client: HTTPClient, catalogueDirectory: String, outputDirectory: String, urls: [String],
        log: @escaping @Sendable (String) -> Void = { print($0) }
    ) async throws -> [DownloadManagerItem] {
        let manager = try await DownloadManager(client: client, catalogueDirectory: catalogueDirectory, maxRunning: 2)
        for (index, url) in urls.enumerated() {
            // One file per URL, numbered so two URLs ending in the same name do not collide.
            _ = try await manager.add(from: url, to: "\(outputDirectory)/\(index)-download.bin")
        }
        let reporter = Task {
            for await total in manager.aggregateProgress {
                let percent = total.fraction.map { "\(Int($0 * 100))%" } ?? "?"
                log("\(total.receivedBytes) bytes, \(percent)")
            }
        }
        await manager.waitUntilIdle()
        reporter.cancel()
        for item in manager.items {
            log("\(item.id) \(item.destination): \(item.state)")
        }
        return manager.items
    }
}

// ManageDownloads: many downloads in one DownloadManager — a queue of two at a time, a progress line for
// all of them, and a catalogue in a directory so that running the same command again (after Ctrl-C or
// kill -9) picks up every item where it was: finished ones are not fetched again.

import HTTPWire

enum ManageDownloads {
    /// `Examples manage-downloads /tmp/catalogue /tmp/out URL...`
    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 3 else { return print("usage: manage-downloads CATALOGUE_DIR OUT_DIR URL...") }
        let client = HTTPClient()
        let manager = try await DownloadManager(client: client, catalogueDirectory: arguments[0], maxRunning: 2)
        for (index, url) in arguments.dropFirst(2).enumerated() {
            // One file per URL, numbered so two URLs ending in the same name do not collide.
            _ = try await manager.add(from: url, to: "\(arguments[1])/\(index)-download.bin")
        }
        let reporter = Task {
            for await total in manager.aggregateProgress {
                let percent = total.fraction.map { "\(Int($0 * 100))%" } ?? "?"
                print("\(total.receivedBytes) bytes, \(percent)")
            }
        }
        await manager.waitUntilIdle()
        reporter.cancel()
        for item in manager.items {
            print("\(item.id) \(item.destination): \(item.state)")
        }
        await client.shutdown()
    }
}

// DownloadTestSupport: what the download tests share — a scratch directory per test, file reads (off the
// cooperative pool), and a wait for the first progress event.

import Foundation
import HTTPWire
import HTTPWireCodec
import TestSupport

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct DownloadScratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "httpwire-download-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// The bytes of a file, nil when it does not exist (read off the cooperative pool: downloads are MBs).
    static func contents(_ path: String) async -> [UInt8]? {
        await TestFiles.contents(of: path)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Deterministic, non-repeating-looking test content.
    static func pattern(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }
}

extension Download {
    /// Waits until the download reports at least `bytes` received (or ends), then returns.
    func waitForProgress(atLeast bytes: Int64) async {
        for await event in events {
            if case .progress(let progress) = event, progress.receivedBytes >= bytes { return }
            if case .finished = event { return }
        }
    }
}

// TestFiles: whole-file reads and writes for tests, made on a DedicatedThread (test support, shared by
// HTTPWireTests and WireCLITests).
//
// Tests compare downloads of megabytes with what the server sent and write upload sources of megabytes.
// Reading or writing such a file is a blocking call that can wait on the disk, so it does not run on the
// cooperative pool: the calls here hop to a thread of their own and back. Small files (a few kB of
// fixture text) may be read in place; these are for anything that may be large.

import Foundation

/// Reads and writes whole files off the cooperative pool.
///
/// ```swift
/// try await TestFiles.write(content, to: source)
/// #expect(await TestFiles.contents(of: destination) == content)
/// ```
public enum TestFiles {
    /// The bytes of the file at `path`, or nil when it cannot be read (it does not exist, say).
    public static func contents(of path: String) async -> [UInt8]? {
        await DedicatedThread.run { FileManager.default.contents(atPath: path).map { Array($0) } }
    }

    /// Writes `bytes` to `path`, replacing what was there.
    public static func write(_ bytes: [UInt8], to path: String) async throws {
        try await DedicatedThread.run { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
    }
}

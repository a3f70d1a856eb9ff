// FileSystemDirectoriesTests: `FileSystem.createDirectories` (mkdir -p, behind wire's --create-dirs) —
// every missing level made, existing directories accepted, a file in the way refused with the call and path.

import Foundation
import Testing

@testable import HTTPWireTransport

@Suite struct FileSystemDirectoriesTests {
    private func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-mkdir-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test("every missing level is made; running it again, or over existing levels, is not an error")
    func nested() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let deep = root + "/a/./b//c/"
        try FileSystem.createDirectories(deep)
        #expect(try FileSystem.status(ofPath: root + "/a/b/c")?.isDirectory == true)
        try FileSystem.createDirectories(deep)
        try FileSystem.createDirectories(root + "/a/b/c/d")
        #expect(try FileSystem.status(ofPath: root + "/a/b/c/d")?.isDirectory == true)
    }

    @Test("a file where a directory should be is refused, naming the path")
    func fileInTheWay() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = FileManager.default.createFile(atPath: root + "/f", contents: Data([1]))
        #expect(throws: TransportError.fileWriteFailed(call: "mkdir", path: root + "/f", errno: ENOTDIR)) {
            try FileSystem.createDirectories(root + "/f")
        }
        // Deeper: the error names the file in the way, not the directory that could not be made below it.
        #expect(throws: TransportError.fileWriteFailed(call: "mkdir", path: root + "/f", errno: ENOTDIR)) {
            try FileSystem.createDirectories(root + "/f/x/y")
        }
    }
}

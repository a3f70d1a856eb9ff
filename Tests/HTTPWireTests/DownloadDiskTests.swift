// Downloads meeting local disk trouble: a destination that cannot be written, and a disk that fills up
// mid-body (a 1 MiB tmpfs, when this process may mount one), then resumes once there is room.

import Foundation
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@testable import FixtureServer

@Suite(.serialized) struct DownloadDiskTests {
    /// Mounting needs root (true in the project's sandbox); elsewhere the tmpfs tests are skipped. Probed
    /// once, with a real mount, the first time a test asks.
    private static let probingMount = Task<Bool, Never> {
        guard getuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "httpwire-mount-probe-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard await run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]) else { return false }
        return await run("/bin/umount", [probe])
    }

    /// Whether this process may mount a tmpfs.
    static var canMount: Bool {
        get async { await probingMount.value }
    }

    /// Runs `tool` (mount, umount) through Subprocess; whether it exited 0.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) async -> Bool {
        (try? await Subprocess.run(tool, arguments))?.status == 0
    }

    @Test(
        "an unwritable destination is localWriteFailed (exit 23) and nothing is written", .timeLimit(.scaledMinutes(1)))
    func unwritableDirectory() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let locked = scratch.file("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        let isMounted = await Self.canMount
        if isMounted {
            // root ignores permission bits: a read-only file system refuses everyone.
            try #require(await Self.run("/bin/mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", locked]))
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked)
        }
        do {
            try await downloadIntoUnwritable(locked)
        } catch {
            if isMounted { await Self.run("/bin/umount", [locked]) }
            throw error
        }
        if isMounted { await Self.run("/bin/umount", [locked]) }
    }

    /// The download into `locked` fails before any request, on its lock file.
    private func downloadIntoUnwritable(_ locked: String) async throws {
        try await withFixtureServer { server in
            server.setFile("w.bin", contents: DownloadScratch.pattern(10_000))
            let client = HTTPClient()
            let destination = locked + "/w.bin"
            do {
                _ = try await client.download(from: server.baseURL + "files/w.bin", to: destination).result()
                Issue.record("the download succeeded into an unwritable directory")
            } catch let error as HTTPWireError {
                guard case .localWriteFailed(let path, let code) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                // The download's lock file is the first file it creates, before any request.
                #expect(path == destination + ".part.lock")
                #expect(code == EROFS || code == EACCES)
                #expect(error.exitCode == 23)
            }
            await client.shutdown()
        }
    }

    @Test(
        "a full disk is localWriteFailed(ENOSPC), keeps the partial data, and resumes once there is room",
        .enabled { await canMount }, .timeLimit(.scaledMinutes(1)), arguments: [true, false])
    func diskFull(zeroCopy: Bool) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let disk = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(await Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]))
        do {
            try await fillAndResume(disk, zeroCopy: zeroCopy)
        } catch {
            await Self.run("/bin/umount", [disk])
            throw error
        }
        await Self.run("/bin/umount", [disk])
    }

    /// A download into the 1 MiB tmpfs at `disk` fills it, then resumes once it is remounted larger.
    private func fillAndResume(_ disk: String, zeroCopy: Bool) async throws {
        let content = DownloadScratch.pattern(3_000_000)
        try await withFixtureServer { server in
            server.setFile("big.bin", contents: content, etag: "\"big\"")
            let client = HTTPClient()
            var options = DownloadOptions()
            options.allowsZeroCopy = zeroCopy
            let url = server.baseURL + "files/big.bin"
            let destination = disk + "/big.bin"
            await #expect(throws: HTTPWireError.localWriteFailed(path: destination + ".part", errno: ENOSPC)) {
                try await client.download(from: url, to: destination, options: options).result()
            }
            let kept = try #require(await DownloadScratch.contents(destination + ".part"))
            #expect(kept.count > 0)
            #expect(kept == Array(content[..<kept.count]))
            let stored = await Download.storedProgress(forDestination: destination)
            let committed = try #require(stored?.receivedBytes)
            // The record was rewritten in place although the disk was full: what was written is counted.
            #expect(committed > 0)
            #expect(committed <= Int64(kept.count))

            #expect(await Self.run("/bin/mount", ["-o", "remount,size=8m", disk]))
            let result = try await client.download(from: url, to: destination, options: options).result()
            #expect(result.resumedFromBytes == committed)
            #expect(await DownloadScratch.contents(destination) == content)
            #expect(server.requestLog.last?.fields["Range"] == "bytes=\(committed)-")
            await client.shutdown()
        }
    }
}

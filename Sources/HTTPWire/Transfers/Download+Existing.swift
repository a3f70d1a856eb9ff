// Download+Existing: "skip what is done" for a single download — a destination that already holds the
// file with the expected SHA-256 is not fetched again.
// Features layer: one blocking read of the existing file on the BlockingWorker (through the transport's
// DiskFile and SHA256Hasher); no request is sent. It must not modify or remove the existing file: a file
// that does not match is simply replaced by the download's rename, as before.
//
// Only with ``DownloadOptions/expectedSHA256``: without a checksum, an existing file proves nothing (the
// server's copy may have changed), and asking the server (a conditional GET) costs a request anyway. The
// price is one read of the existing file, at disk speed (or page-cache speed, GB/s, for a file just
// written), paid only when both a checksum is given and the destination exists. A ``DownloadManager`` item
// gets the same from its catalogue (a completed item is not fetched again) without reading the file.

import HTTPWireTransport

extension Download {
    /// The result of a download that has nothing to do: `destination` exists, no part file is pending, and
    /// its SHA-256 is ``DownloadOptions/expectedSHA256``. Nil when the download must run (no checksum asked
    /// for, a restart asked for, no such file, a partial download pending, or a different file).
    func existingCompleteFile(at destination: String) async throws -> DownloadResult? {
        guard let expected = options.expectedSHA256, !options.restart, isResumable else { return nil }
        let partialPath = ResumeRecord.partialFilePath(forDestination: destination)
        let found = try await DownloadPartialFile.runBlocking { () -> (Int64, SHA256Digest)? in
            guard DownloadPartialFile.fileSize(atPath: partialPath) == nil,
                let size = DownloadPartialFile.fileSize(atPath: destination)
            else { return nil }
            guard let digest = Self.digest(ofFileAt: destination) else { return nil }
            return (size, digest)
        }
        guard let (size, digest) = found, digest == expected else { return nil }
        return DownloadResult(location: destination, bytes: size, resumedFromBytes: size, sha256: digest, requests: 0)
    }

    /// The SHA-256 of the file at `path`, read in 1 MiB blocks; nil when it cannot be read. Blocking.
    private static func digest(ofFileAt path: String) -> SHA256Digest? {
        guard let file = try? DiskFile.open(path, for: .reading) else { return nil }
        defer { file.close() }
        var hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in (try? file.read(into: raw, at: offset)) ?? -1 }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += Int64(count)
        }
        return hasher.finalize().flatMap { SHA256Digest(bytes: $0) }
    }
}

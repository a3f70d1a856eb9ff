// Download+Storage: what is on disk for a destination, without starting anything — stored progress of a
// partial download, whether it is complete or running, and removing its data safely.
// Features layer: static questions about `dest`, `dest.part` and `dest.part.resume`; the file calls run on
// the blocking worker. This file must not send requests.

#if canImport(Glibc)
    import Glibc
#endif

extension Download {
    /// The progress a resume of `destination` would start from: the bytes the record counts (what a
    /// resume keeps) and the expected total. Nil when there is no part file. A part file without a usable
    /// record reports zero bytes: its content cannot be trusted and would be downloaded again.
    @concurrent public static func storedProgress(destination: String) async -> TransferProgress? {
        let file = DownloadPartialFile(destination: destination)
        let found = try? await DownloadPartialFile.runBlocking { file.inspect() }
        guard let found, let size = found.partialFileSize else { return nil }
        guard let record = found.record else { return TransferProgress(receivedBytes: 0, expectedBytes: nil) }
        return TransferProgress(receivedBytes: min(record.committedBytes, size), expectedBytes: record.expectedLength)
    }

    /// True while a download to `destination` runs (or is paused) in this process.
    public static func isDownloading(destination: String) -> Bool {
        activeDownload(to: destination) != nil
    }

    /// True when `destination` exists and no partial download of it is pending or running.
    @concurrent public static func isComplete(destination: String) async -> Bool {
        guard activeDownload(to: destination) == nil else { return false }
        let file = DownloadPartialFile(destination: destination)
        let sizes = try? await DownloadPartialFile.runBlocking {
            (DownloadPartialFile.fileSize(atPath: destination), DownloadPartialFile.fileSize(atPath: file.partialPath))
        }
        guard let sizes else { return false }
        return sizes.0 != nil && sizes.1 == nil
    }

    /// Removes everything downloaded for `destination` — the finished file, the part file and the record —
    /// at any time: a download running to it in this process is cancelled and awaited first, so no write
    /// lands after the removal. A download running to it in another process is not ours to stop: then
    /// this throws `localWriteFailed(path: destination, errno: EBUSY)` and removes nothing. Missing files
    /// are not an error.
    @concurrent public static func removeData(destination: String) async throws {
        if let running = activeDownload(to: destination) {
            running.cancel()
            _ = try? await running.result()
        }
        let file = DownloadPartialFile(destination: destination)
        try await DownloadPartialFile.runBlocking {
            // Holding the download lock while deleting means no download starts or runs under our feet.
            let lock: DownloadLock
            do {
                lock = try DownloadLock.acquire(forDestination: destination)
            } catch HTTPWireError.localWriteFailed(_, let code) where code == ENOENT {
                return  // no such directory: nothing was downloaded there
            }
            defer { lock.release() }
            try file.discard()
            try ResumeRecord.remove(atPath: destination)
        }
    }
}

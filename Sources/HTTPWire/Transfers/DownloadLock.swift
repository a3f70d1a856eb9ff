// DownloadLock: the claim one download holds on its destination, across processes — an exclusive advisory
// `flock(2)` on a small file of its own, `dest.part.lock`, taken before the download reads or changes
// anything on disk and held until it ends (through its retries and pauses).
// Downloads layer: blocking file calls through the transport's `DiskFile`, run on the BlockingWorker thread
// like the rest of `DownloadPartialFile`. It must not read or write the part file or the record; it only
// decides who may.
//
// A flock belongs to the open file description, not to the process: a second `open` of the same file in
// the same process conflicts too, so two tasks of one program are kept apart as well as two programs, even
// when they spell the path differently. The kernel drops the lock when the last descriptor closes, which
// includes the holder dying: a download killed with SIGKILL leaves `dest.part.lock` behind but never a
// stale lock, and the next run takes it and resumes as usual.
//
// Why not lock `dest.part` itself: the download replaces that file, and a lock cannot follow a path.
// - The "restart" option and a server that ignores `If-Range` delete `dest.part` (`discard()`): the lock
//   would stay on the deleted inode while a second download created a new `dest.part` and locked that.
// - The end of a download renames `dest.part` onto `dest`: the locked inode becomes the finished file, and
//   a download that had opened `dest.part` just before could lock it next and cut it to its resume offset.
// - The lock must be held before the record is read and before a restart deletes anything, but the part
//   file may only be created once the response is known to be usable (a 404 writes nothing).
// - `removeData` deletes everything; it takes this lock first, so it refuses to pull files from under a
//   download running in another process.
// The lock file is never renamed or truncated. Its holder deletes it at the end *while still holding the
// lock*, and a newcomer checks after locking that the file it locked is still the one at the path (else it
// locked a deleted file and tries again). That pair of rules is what makes deleting a lock file safe.

import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// The exclusive lock of one download on its destination (`dest.part.lock`); see the file's header.
///
/// ```swift
/// let lock = try DownloadLock.acquire(forDestination: "big.iso")   // on the blocking worker
/// defer { lock.release() }
/// try DownloadPartialFile(destination: "big.iso").discard()
/// ```
final class DownloadLock: Sendable {
    /// The destination the lock guards.
    let destination: String
    /// `dest.part.lock`.
    let path: String
    /// The locked file, or nil once released. Only `release` and `deinit` touch it.
    private let file: LockedState<DiskFile?>

    /// How often a newcomer tries again after locking a file its holder had just deleted. Each attempt
    /// needs another download to start and finish in between, so a handful is already paranoid.
    private static let maxAttempts = 16

    private init(destination: String, path: String, file: DiskFile) {
        self.destination = destination
        self.path = path
        self.file = LockedState(file)
    }

    deinit {
        // Not released (a bug, or an error between acquiring and storing it): closing still drops the lock,
        // just as a crash would; only the file stays.
        file.withLock { $0?.close() }
    }

    /// The lock file for a destination: `dest.part.lock`, beside the part file and the record, so
    /// `rm dest.part*` removes all three.
    static func lockPath(forDestination destination: String) -> String {
        ResumeRecord.partialFilePath(forDestination: destination) + ".lock"
    }

    /// Takes the lock for `destination` without waiting. Throws `localWriteFailed(path: destination,
    /// errno: EBUSY)` at once when another download — in this process or another — holds it, and
    /// `localWriteFailed(path: lockPath, errno:)` when the lock file cannot be opened or locked. Blocking.
    static func acquire(forDestination destination: String) throws(HTTPWireError) -> DownloadLock {
        let path = lockPath(forDestination: destination)
        for _ in 0..<maxAttempts {
            // Opened close-on-exec (as every DiskFile is): a child started by this program must not inherit
            // the lock and keep it alive.
            let file = try HTTPWireError.local { () throws(TransportError) in
                try DiskFile.open(path, for: .writing(creating: true))
            }
            let isLocked: Bool
            do {
                isLocked = try HTTPWireError.local { () throws(TransportError) in try file.lockExclusively() }
            } catch {
                file.close()
                throw error
            }
            guard isLocked else {
                file.close()
                // Held elsewhere: reported as EBUSY, the errno the in-process check uses and one no file
                // write gives, so the line printed for it can say "another download" (HTTPWireError.description).
                throw .localWriteFailed(path: destination, errno: EBUSY)
            }
            if isStillNamed(file, path: path) {
                return DownloadLock(destination: destination, path: path, file: file)
            }
            // The previous holder deleted this file between our open and our flock; a download that starts
            // now creates and locks a new one. Ours guards nothing: try again with whatever is there.
            file.close()
        }
        throw .localWriteFailed(path: destination, errno: EBUSY)
    }

    /// True when `file` is still the file at `path` (same device and inode), not one deleted meanwhile.
    private static func isStillNamed(_ file: DiskFile, path: String) -> Bool {
        guard let locked = try? file.status(), let named = try? FileSystem.status(ofPath: path) else { return false }
        return locked.identity == named.identity
    }

    /// Deletes the lock file, then closes it, which drops the lock. In that order: deleting after closing
    /// could delete a file that a newcomer has just locked. A failed delete only leaves the file behind,
    /// which costs nothing. Blocking; calling it again does nothing.
    func release() {
        file.withLock { file in
            guard let locked = file else { return }
            try? FileSystem.remove(path)
            locked.close()
            file = nil
        }
    }
}

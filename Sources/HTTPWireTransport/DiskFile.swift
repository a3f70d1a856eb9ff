// DiskFile: one open regular file — read and written at explicit offsets, flushed, locked (transport layer).
//
// Uploads read files and downloads write them; both do it through this type, so that a file is a
// `FileDescriptor` like a socket (counted by the tests' leak check, closed exactly once) and every call goes
// through `Syscall`, which captures errno once. Failures are `TransportError.fileReadFailed` or
// `fileWriteFailed` with the call and the path, which the layer above turns into its own error. Reads and
// writes name their offset (pread/pwrite), so no call depends on a shared file position.
//
// Every method here may block on the disk: call them on a `BlockingWorker`, never on the cooperative pool
// or the reactor thread. The zero-copy calls that move bytes between a socket and a file (sendfile(2),
// splice(2)) live on `TCPSocket`, which takes a `DiskFile`. This file knows nothing of HTTP or downloads.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// An open regular file.
///
/// ```swift
/// let file = try DiskFile.open("big.iso.part", for: .writing(creating: true))
/// defer { file.close() }
/// try file.write(bytes, at: 0)
/// try file.synchronizeData()
/// ```
package final class DiskFile: Sendable, CustomStringConvertible {
    /// How a file is opened.
    package enum Access: Sendable, Hashable {
        /// Read only; the file must exist.
        case reading
        /// Read and write; created (mode 0644) when `creating` and missing.
        case writing(creating: Bool)
    }

    /// The path the file was opened at, for messages.
    package let path: String
    /// The descriptor; closed by ``close()`` (or, for a forgotten file, by `FileDescriptor`'s deinit).
    package let descriptor: FileDescriptor

    private init(path: String, descriptor: FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Opens the file at `path`. Throws `fileReadFailed` or `fileWriteFailed` (per `access`) with open's errno.
    package static func open(_ path: String, for access: Access) throws(TransportError) -> DiskFile {
        let flags: Int32
        switch access {
        case .reading: flags = O_RDONLY | O_CLOEXEC
        case .writing(let creating): flags = O_RDWR | O_CLOEXEC | (creating ? O_CREAT : 0)
        }
        do throws(SystemCallError) {
            let number = try Syscall.runOnce("open") { Glibc.open(path, flags, 0o644) }
            return DiskFile(path: path, descriptor: FileDescriptor(adopting: number))
        } catch {
            if access == .reading { throw .fileReadFailed(call: "open", path: path, errno: error.errno) }
            throw .fileWriteFailed(call: "open", path: path, errno: error.errno)
        }
    }

    /// Closes the file; later calls fail with `EBADF` reported as a read or write failure.
    package func close() {
        descriptor.close()
    }

    /// Whether ``close()`` has not been called.
    package var isOpen: Bool { descriptor.isOpen }

    // MARK: Reading

    /// What fstat(2) says of the open file: its size, whether it is a regular file, and its identity
    /// (device and inode), which tells whether a path still names this file.
    package func status() throws(TransportError) -> FileStatus {
        var info = stat()
        try call("fstat", isWrite: false) { fstat($0, &info) }
        return FileStatus(info)
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many (0 at the end of the file).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(TransportError) -> Int {
        guard buffer.count > 0 else { return 0 }
        return try call("pread", isWrite: false) { pread($0, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Fills `buffer` from `offset`, looping over short reads; returns how many bytes it holds, fewer than
    /// `buffer.count` only at the end of the file.
    package func readFully(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(TransportError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: offset + Int64(filled))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    // MARK: Writing

    /// Writes all of `bytes` at `offset`, looping over short writes. A full disk is `ENOSPC`; a write that
    /// makes no progress at all is reported as `EIO`. Bytes written before a failure stay in the file.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(TransportError) {
        var done = 0
        while done < bytes.count {
            let remaining = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let count = try call("pwrite", isWrite: true) {
                pwrite($0, remaining.baseAddress, remaining.count, off_t(offset) + off_t(done))
            }
            if count == 0 { throw .fileWriteFailed(call: "pwrite", path: path, errno: EIO) }
            done += count
        }
    }

    /// The most buffers one pwritev(2) takes: `IOV_MAX` (Linux's `UIO_MAXIOV`), a macro Swift does not import.
    static let maxVectorsPerWrite = 1024

    /// Writes `pieces`, one after another, at `offset` with pwritev(2): one call for many separate buffers
    /// (a chunked body's data, between the framing left where it was received). At most `IOV_MAX` (1,024)
    /// buffers per call; short writes resume where they stopped. Failures as for `write(_:at:)`.
    package func write(_ pieces: [UnsafeRawBufferPointer], at offset: Int64) throws(TransportError) {
        var vectors = pieces.filter { !$0.isEmpty }.map {
            iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
        }
        var first = 0
        var done = 0
        while first < vectors.count {
            let batch = min(vectors.count - first, Self.maxVectorsPerWrite)
            let count = try vectors.withUnsafeBufferPointer { (all) throws(TransportError) -> Int in
                try call("pwritev", isWrite: true) {
                    pwritev($0, all.baseAddress! + first, Int32(batch), off_t(offset) + off_t(done))
                }
            }
            if count == 0 { throw .fileWriteFailed(call: "pwritev", path: path, errno: EIO) }
            done += count
            // Skip the buffers written whole; a partly written one continues from where the write stopped.
            var left = count
            while left > 0, left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base += left
                vectors[first].iov_len -= left
            }
        }
    }

    /// Cuts (or extends with zeros) the file to `length` bytes.
    package func truncate(to length: Int64) throws(TransportError) {
        try call("ftruncate", isWrite: true) { ftruncate($0, off_t(length)) }
    }

    /// fdatasync(2): the file's data (and the size) reach the disk before this returns.
    package func synchronizeData() throws(TransportError) {
        try call("fdatasync", isWrite: true) { fdatasync($0) }
    }

    /// fsync(2): data and metadata reach the disk.
    package func synchronize() throws(TransportError) {
        try call("fsync", isWrite: true) { fsync($0) }
    }

    /// Takes an exclusive advisory lock (flock(2), `LOCK_EX | LOCK_NB`); false when another open file
    /// description holds it. Released when the file is closed (or the process ends, even by SIGKILL).
    package func lockExclusively() throws(TransportError) -> Bool {
        do throws(SystemCallError) {
            let number = descriptor.rawValue
            switch try Syscall.run("flock", { flock(number, LOCK_EX | LOCK_NB) }) {
            case .done: return true
            case .wouldBlock: return false
            }
        } catch {
            throw .fileWriteFailed(call: "flock", path: path, errno: error.errno)
        }
    }

    /// `"file big.iso.part (fd 9)"`.
    package var description: String { "file \(path) (\(descriptor))" }

    /// Makes one call on the open descriptor through `Syscall`, translating its failure. A closed file is
    /// reported as `EBADF` rather than reaching the kernel (where EBADF would be a bug in the caller).
    @discardableResult
    private func call<Result: FixedWidthInteger & SignedInteger>(
        _ name: StaticString, isWrite: Bool, _ body: (Int32) -> Result
    ) throws(TransportError) -> Result {
        let number = descriptor.rawValue
        guard number >= 0 else {
            if isWrite { throw .fileWriteFailed(call: "\(name)", path: path, errno: EBADF) }
            throw .fileReadFailed(call: "\(name)", path: path, errno: EBADF)
        }
        do throws(SystemCallError) {
            return try Syscall.runOnce(name) { body(number) }
        } catch {
            if isWrite { throw .fileWriteFailed(call: error.call, path: path, errno: error.errno) }
            throw .fileReadFailed(call: error.call, path: path, errno: error.errno)
        }
    }
}

/// What stat(2) or fstat(2) says of a file, the parts HTTPWire uses.
package struct FileStatus: Sendable, Hashable {
    /// The size in bytes.
    package var size: Int64
    /// Whether it is a regular file (not a directory, pipe or device).
    package var isRegularFile: Bool
    /// Whether it is a directory.
    package var isDirectory: Bool
    /// The device and inode: two statuses with the same identity describe the same file.
    package var identity: FileIdentity
    /// When the file's data last changed, in nanoseconds since the Unix epoch (st_mtim).
    package var modifiedNanosecondsSinceEpoch: Int64

    init(_ info: stat) {
        size = Int64(info.st_size)
        modifiedNanosecondsSinceEpoch = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        isRegularFile = info.st_mode & S_IFMT == S_IFREG
        isDirectory = info.st_mode & S_IFMT == S_IFDIR
        identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

/// A file's device and inode numbers.
package struct FileIdentity: Sendable, Hashable {
    /// st_dev.
    package var device: UInt64
    /// st_ino.
    package var inode: UInt64
}

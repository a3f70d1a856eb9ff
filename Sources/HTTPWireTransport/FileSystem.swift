// FileSystem: operations on paths rather than open files — stat, rename, unlink, listing a directory, whole
// small files, and making a directory entry durable (transport layer).
//
// Downloads put a part file in place with rename(2) and keep a small record beside it that is replaced
// atomically (write a temporary file, fsync it, rename it over the old one, fsync the directory). These are
// the calls that needs, each through `Syscall`, each failure a `TransportError` with the call and the path.
// Like `DiskFile`, everything here may block on the disk: call it on a `BlockingWorker`. This file knows
// nothing of HTTP or of what the files hold.

#if canImport(Glibc)
    import Glibc
#endif

/// Path operations of the local file system.
///
/// ```swift
/// try FileSystem.replaceAtomically("dest.part.resume", with: Array(record.utf8))
/// try FileSystem.rename("dest.part", to: "dest")
/// try FileSystem.synchronizeDirectory(containing: "dest")
/// ```
package enum FileSystem {
    /// stat(2) of `path` (following symbolic links); nil when nothing is there (`ENOENT`, `ENOTDIR`).
    package static func status(ofPath path: String) throws(TransportError) -> FileStatus? {
        var info = stat()
        do throws(SystemCallError) {
            _ = try Syscall.runOnce("stat") { stat(path, &info) }
            return FileStatus(info)
        } catch let error where error.errno == ENOENT || error.errno == ENOTDIR {
            return nil
        } catch {
            throw .fileReadFailed(call: "stat", path: path, errno: error.errno)
        }
    }

    /// rename(2): atomically makes `destination` name what `source` named.
    package static func rename(_ source: String, to destination: String) throws(TransportError) {
        do throws(SystemCallError) {
            _ = try Syscall.runOnce("rename") { Glibc.rename(source, destination) }
        } catch {
            throw .fileWriteFailed(call: "rename", path: destination, errno: error.errno)
        }
    }

    /// unlink(2); a path that does not exist is not an error.
    package static func remove(_ path: String) throws(TransportError) {
        do throws(SystemCallError) {
            _ = try Syscall.runOnce("unlink") { unlink(path) }
        } catch let error where error.errno == ENOENT {
            return
        } catch {
            throw .fileWriteFailed(call: "unlink", path: path, errno: error.errno)
        }
    }

    /// mkdir(2) of `path` and of every missing directory above it (`mkdir -p`), with mode 0755 less the
    /// umask. A component that already exists as a directory is not an error; one that exists as anything
    /// else fails with `EEXIST`/`ENOTDIR` from the call that met it.
    package static func createDirectories(_ path: String) throws(TransportError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            defer { prefix += "/" }
            if component == "." || component == ".." { continue }
            do throws(SystemCallError) {
                _ = try Syscall.runOnce("mkdir") { mkdir(prefix, 0o755) }
            } catch let error where error.errno == EEXIST {
                guard let existing = try status(ofPath: prefix), existing.isDirectory else {
                    throw .fileWriteFailed(call: "mkdir", path: prefix, errno: ENOTDIR)
                }
            } catch {
                throw .fileWriteFailed(call: "mkdir", path: prefix, errno: error.errno)
            }
        }
    }

    /// The names in the directory at `path` (not `.` and `..`), in no particular order; empty when the
    /// directory does not exist. opendir(3) and readdir(3) are library calls over getdents64(2): the
    /// stream's descriptor lives only inside this call, and the end of the directory and a failure to read
    /// it further both end the list (readdir reports the latter only through errno, on a stream that was
    /// opened fine).
    package static func names(inDirectory path: String) throws(TransportError) -> [String] {
        guard let stream = opendir(path) else {
            let code = Syscall.errnoAfterLibraryCall()
            if code == ENOENT { return [] }
            throw .fileReadFailed(call: "opendir", path: path, errno: code)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole contents of a small file, at most `limit` bytes (more is `EFBIG`); nil when it does not
    /// exist.
    package static func contents(ofPath path: String, limit: Int) throws(TransportError) -> [UInt8]? {
        let file: DiskFile
        do {
            file = try DiskFile.open(path, for: .reading)
        } catch .fileReadFailed(_, _, let code) where code == ENOENT || code == ENOTDIR {
            return nil
        }
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        let count = try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(TransportError) in
                try file.readFully(into: buffer, at: 0)
            }
        }.get()
        guard count <= limit else { throw .fileReadFailed(call: "read", path: path, errno: EFBIG) }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Replaces the file at `path` with `bytes` so that a crash leaves either the old file or the new one,
    /// never a mixture: the bytes go to `path.tmp`, which is flushed (fsync) and renamed over `path`, and
    /// the directory is flushed so the rename itself survives a power loss. With `synchronizing: false`
    /// both flushes are skipped: still atomic for readers and for a process killed at any point (the
    /// kernel keeps what was written), but a power loss may lose the new file, or leave it empty.
    package static func replaceAtomically(
        _ path: String, with bytes: [UInt8], synchronizing: Bool = true
    ) throws(TransportError) {
        let temporaryPath = path + ".tmp"
        do throws(TransportError) {
            try remove(temporaryPath)
            let file = try DiskFile.open(temporaryPath, for: .writing(creating: true))
            defer { file.close() }
            try file.truncate(to: 0)
            try bytes.withUnsafeBytes { buffer in Result { () throws(TransportError) in try file.write(buffer, at: 0) }
            }.get()
            if synchronizing { try file.synchronize() }
            try rename(temporaryPath, to: path)
        } catch {
            try? remove(temporaryPath)
            throw error
        }
        if synchronizing { try synchronizeDirectory(containing: path) }
    }

    /// fsync(2) on the directory that holds `path`, which makes a rename or a new entry durable.
    package static func synchronizeDirectory(containing path: String) throws(TransportError) {
        let directory = directoryName(of: path)
        do throws(SystemCallError) {
            let number = try Syscall.runOnce("open") { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            let descriptor = FileDescriptor(adopting: number)
            defer { descriptor.close() }
            _ = try Syscall.runOnce("fsync") { fsync(number) }
        } catch {
            throw .fileWriteFailed(call: error.call, path: directory, errno: error.errno)
        }
    }

    /// The directory part of `path`: `"a/b"` for `"a/b/c"`, `"/"` for `"/c"`, `"."` for `"c"`.
    package static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

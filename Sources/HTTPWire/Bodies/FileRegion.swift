// FileRegion: "these bytes of that file", the unit in which request bodies refer to files on disk.
// Bodies layer: a plain value plus the one fstat(2) that measures a file; it reads nothing.
//
// A body that refers to files instead of holding their bytes keeps memory flat however large the upload,
// lets the file be read block by block as it is sent, and can be replayed for a redirect or a retry because the
// file is still there. The price is that the file may change between the moment its length went into
// Content-Length and the moment it is sent; `expectedFileSize` is what lets the reader notice
// (see FileRegionReader.swift).

import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// A contiguous range of a file to send, together with the size the whole file had when the range was
/// chosen.
///
/// The length was promised to the server in Content-Length (RFC 9112 §6.2) before a byte was sent, so the
/// file must still be exactly `expectedFileSize` bytes when it is read; `FileRegionReader` checks that.
///
/// ```swift
/// let region = try FileRegion.wholeFile(at: "/tmp/report.pdf")   // stat now
/// let body = RequestBody.file("/tmp/report.pdf")                   // the client does this for you
/// ```
struct FileRegion: Sendable, Hashable {
    /// The file's path, as given by the caller (relative paths are relative to the working directory at
    /// the moment the file is opened).
    var path: String
    /// Where the region starts, in bytes from the start of the file.
    var offset: Int64
    /// How many bytes the region holds.
    var length: Int64
    /// The size of the whole file when the region was made; a different size at send time is an error.
    var expectedFileSize: Int64

    /// A region of `length` bytes from `offset` in the file at `path`, whose size was `expectedFileSize`.
    ///
    /// Nothing is checked here; the reader that sends it refuses a negative offset or length (`EINVAL`)
    /// and a region that does not fit in the file it finds.
    init(path: String, offset: Int64, length: Int64, expectedFileSize: Int64) {
        self.path = path
        self.offset = offset
        self.length = length
        self.expectedFileSize = expectedFileSize
    }

    /// The whole file at `path`, measured now with stat(2).
    ///
    /// Fails with ``HTTPWireError/localReadFailed(path:errno:)`` when the file cannot be opened for reading
    /// (`ENOENT`, `EACCES`, ...), when it is a directory (`EISDIR`), or when it is not a regular file
    /// (a pipe or a device has no size to announce: `ESPIPE`). Opening it here, not only stat-ing it, makes
    /// a permission problem surface before the request starts rather than in the middle of the body.
    ///
    /// This is blocking disk I/O: the client calls it on its BlockingWorker thread, never on the reactor or
    /// the cooperative pool.
    static func wholeFile(at path: String) throws(HTTPWireError) -> FileRegion {
        let file = try HTTPWireError.local { () throws(TransportError) in try DiskFile.open(path, for: .reading) }
        defer { file.close() }
        let size = try currentSize(of: file)
        return FileRegion(path: path, offset: 0, length: size, expectedFileSize: size)
    }

    /// The size of the open regular `file` now, from fstat(2); other kinds of file are refused as
    /// ``wholeFile(at:)`` explains.
    static func currentSize(of file: DiskFile) throws(HTTPWireError) -> Int64 {
        let status = try HTTPWireError.local { () throws(TransportError) in try file.status() }
        if status.isRegularFile { return status.size }
        throw HTTPWireError.localReadFailed(path: file.path, errno: status.isDirectory ? EISDIR : ESPIPE)
    }
}

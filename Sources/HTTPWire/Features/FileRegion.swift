// FileRegion: "these bytes of that file", the unit in which request bodies refer to files on disk.
// Features layer: a plain value plus the one stat(2) that measures a file; it opens nothing and reads nothing.
//
// A body that refers to files instead of holding their bytes keeps memory flat however large the upload,
// lets the file be read block by block as it is sent, and can be replayed for a redirect or a retry because the
// file is still there. The price is that the file may change between the moment its length went into
// Content-Length and the moment it is sent; `expectedFileSize` is what lets the reader notice
// (see FileRegionReader.swift).

#if canImport(Glibc)
    import Glibc
#endif

/// A contiguous range of a file to send, together with the size the whole file had when the range was
/// chosen.
///
/// The length was promised to the server in Content-Length (RFC 9112 §6.2) before a byte was sent, so the
/// file must still be exactly `expectedFileSize` bytes when it is read; ``FileRegionReader`` checks that.
///
/// ```swift
/// let region = try FileRegion.wholeFile(at: "/tmp/report.pdf")   // stat now
/// var reader = try FileRegionReader(region: region)                // open and check the size again
/// ```
public struct FileRegion: Sendable, Hashable {
    /// The file's path, as given by the caller (relative paths are relative to the working directory at
    /// the moment the file is opened).
    public var path: String
    /// Where the region starts, in bytes from the start of the file.
    public var offset: Int64
    /// How many bytes the region holds.
    public var length: Int64
    /// The size of the whole file when the region was made; a different size at send time is an error.
    public var expectedFileSize: Int64

    /// A region of `length` bytes from `offset` in the file at `path`, whose size was `expectedFileSize`.
    ///
    /// Nothing is checked here; ``FileRegionReader`` refuses a negative offset or length (`EINVAL`) and a
    /// region that does not fit in the file it finds.
    public init(path: String, offset: Int64, length: Int64, expectedFileSize: Int64) {
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
    public static func wholeFile(at path: String) throws(HTTPWireError) -> FileRegion {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HTTPWireError.localReadFailed(path: path, errno: errno) }
        defer { close(fd) }
        let size = try currentSize(of: fd, path: path)
        return FileRegion(path: path, offset: 0, length: size, expectedFileSize: size)
    }

    /// The size of the open regular file `fd` now, from fstat(2); other kinds of file are refused as
    /// ``wholeFile(at:)`` explains.
    static func currentSize(of fd: Int32, path: String) throws(HTTPWireError) -> Int64 {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw HTTPWireError.localReadFailed(path: path, errno: errno) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return Int64(status.st_size)
        case S_IFDIR: throw HTTPWireError.localReadFailed(path: path, errno: EISDIR)
        default: throw HTTPWireError.localReadFailed(path: path, errno: ESPIPE)
        }
    }
}

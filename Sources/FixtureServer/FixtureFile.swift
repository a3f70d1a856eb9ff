// FixtureFile: a file the fixture server serves under `/files/` — set in memory by a test, or found in the
// served directory — with the validators a download resumes against (edge layer, fixture server).
//
// Resumable downloads hinge on validators (RFC 9110 §8.8): the client keeps the ETag and Last-Modified of
// the first attempt and sends one back in If-Range, so the server sends the rest only if the file is
// unchanged. Tests exercise that by replacing a file under a running server with `setFile`, whose ETag is
// derived from the content, so a change of bytes is a change of validator. Directory files get nginx-style
// validators from size and modification time. Disk calls (stat, open, pread) run on the BlockingWorker,
// never on a cooperative thread; this file does not know about ranges (RangeResponder does).

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// A file set in memory with `FixtureServer.setFile`.
struct FixtureFile: Sendable {
    let contents: [UInt8]
    /// A strong entity tag with its quotes, or a weak one (`W/"…"`) when the test asked for one.
    let entityTag: String
    /// An IMF-fixdate.
    let lastModified: String

    /// A file with the given validators, or ones derived from the content and the clock.
    init(contents: [UInt8], etag: String?, lastModified: String?) {
        self.contents = contents
        self.entityTag = etag ?? "\"sha256-\((SHA256Digest.of(contents)?.hexString ?? "").prefix(16))\""
        self.lastModified = lastModified ?? HTTPDate.now()
    }
}

/// A regular file in the served directory, as `stat` saw it.
struct ServedFile: Sendable {
    let path: String
    let size: Int64
    /// `"size-mtime"` in hex, like nginx: it changes when either does (see PLATFORM.md for the caveat of
    /// same-size replacements within one second, which nanosecond mtimes avoid here).
    let entityTag: String
    let lastModified: String

    /// Looks up `relativePath` (segments already checked by the caller) under `directory`; nil when it is
    /// missing or not a regular file.
    static func find(_ relativePath: String, in directory: String) async throws -> ServedFile? {
        let path = directory.hasSuffix("/") ? directory + relativePath : directory + "/" + relativePath
        return try await BlockingWorker.shared.run {
            guard let status = try? FileSystem.status(ofPath: path), status.isRegularFile else { return nil }
            let nanoseconds = status.modifiedNanosecondsSinceEpoch
            return ServedFile(
                path: path, size: status.size,
                entityTag: "\"\(String(status.size, radix: 16))-\(String(nanoseconds, radix: 16))\"",
                lastModified: HTTPDate.imfFixdate(secondsSinceEpoch: nanoseconds / 1_000_000_000))
        }
    }

    /// Opens the file read-only on the blocking worker; the caller closes it.
    func open() async throws -> DiskFile {
        let path = self.path
        return try await BlockingWorker.shared.run { try DiskFile.open(path, for: .reading) }
    }

    /// Reads up to `count` bytes at `offset` of the open `file` on the blocking worker.
    static func read(_ file: DiskFile, offset: Int64, count: Int) async throws -> [UInt8] {
        try await BlockingWorker.shared.run {
            var bytes = [UInt8](repeating: 0, count: count)
            let got = try bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(TransportError) in try file.readFully(into: buffer, at: offset) }
            }.get()
            bytes.removeLast(count - got)
            return bytes
        }
    }

    /// A media type from the file name's extension; octet-stream when unknown.
    static func contentType(for name: String) -> String {
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch suffix {
        case "txt": return "text/plain; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "json": return "application/json"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        default: return "application/octet-stream"
        }
    }
}

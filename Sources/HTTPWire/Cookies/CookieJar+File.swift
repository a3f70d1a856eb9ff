// CookieJar+File: loading a jar from, and saving it to, a Netscape cookie file (client layer). The disk I/O
// goes through the transport's FileSystem on the BlockingWorker thread, never on the cooperative pool; the
// format itself is NetscapeCookieFile's.
//
// Saving replaces the file atomically (a crash leaves the old file or the new one, never half of each) and
// writes session cookies too, with expiry 0, as `curl -c` does: the next `-b` run continues the session.
// Expired cookies are neither loaded nor saved.

import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CookieJar {
    /// The largest cookie file read: 3000 cookies of 4 KiB would be 12 MiB; 16 MiB leaves room and still
    /// stops a wrong path (a disk image, `/dev/zero`) from filling memory.
    static let maxFileBytes = 16 * 1024 * 1024

    /// Adds the cookies of the Netscape cookie file at `path` (curl's `-b FILE` format) to the jar, and
    /// returns how many were added. A missing file adds none, as with curl (a first run has no file yet);
    /// a file that cannot be read throws ``HTTPWireError/localReadFailed(path:errno:)``.
    @discardableResult
    @concurrent public func load(fromFile path: String) async throws -> Int {
        let bytes = try await BlockingWorker.shared.run {
            try HTTPWireError.local { () throws(TransportError) in
                try FileSystem.contents(ofPath: path, limit: Self.maxFileBytes)
            }
        }
        guard let bytes else { return 0 }
        let now = Date()
        var added = 0
        for cookie in NetscapeCookieFile.cookies(in: String(decoding: bytes, as: UTF8.self), created: now)
        where !cookie.isExpired(at: now) {
            if insert(cookie, now: now) != nil { added += 1 }
        }
        return added
    }

    /// Writes every unexpired cookie, session cookies included, to `path` in the Netscape cookie file
    /// format, with curl's header — the file `curl -c FILE` writes and `curl -b FILE` reads. Failing to
    /// write throws ``HTTPWireError/localWriteFailed(path:errno:)``.
    @concurrent public func save(toFile path: String) async throws {
        let bytes = Array(NetscapeCookieFile.text(of: cookies).utf8)
        try await BlockingWorker.shared.run {
            try HTTPWireError.local { () throws(TransportError) in
                try FileSystem.replaceAtomically(path, with: bytes, synchronizing: false)
            }
        }
    }
}

// DownloadFileNaming: where a download into a directory puts its file when the name the server suggests is
// already taken — the browser's `name (1).ext`, never a silent replacement.
// Downloads layer: pure name arithmetic, plus one look at the directory on the BlockingWorker (file sizes
// and resume records, through `DownloadPartialFile` and `ResumeRecord`). It must not create, lock or
// delete anything; the download claims the chosen path afterwards.
//
// The rule, chosen where issue #15 left the choice open: a download into a directory never replaces an
// existing file. When `report.pdf` exists, the file becomes `report (1).pdf`, then `report (2).pdf`, like
// Chrome and Firefox, rather than failing — a person saving twice expects two files. A name with an
// unfinished download of the *same URL* (a part file whose record names it) is taken again, so that run
// resumes; a part file of another URL is left alone and the next number is tried.

#if canImport(Glibc)
    import Glibc
#endif

/// Picks a free name in a directory for ``HTTPClient/download(from:toDirectory:options:)``.
///
/// ```swift
/// DownloadFileNaming.numbered("report.pdf", 2)        // "report (2).pdf"
/// DownloadFileNaming.numbered("backup.tar.gz", 1)     // "backup (1).tar.gz"
/// ```
package enum DownloadFileNaming {
    /// How many numbered names are tried before giving up with `EEXIST`.
    static let maxAttempts = 1000

    /// `name` with ` (n)` before its extension: the last `.suffix`, or `.tar.suffix` for compressed
    /// tarballs, so the file keeps opening with the same program. A name without a dot (or only a
    /// leading one, `.profile`) gets the number at its end.
    package static func numbered(_ name: String, _ number: Int) -> String {
        guard number > 0 else { return name }
        let characters = Array(name)
        guard let dot = characters.lastIndex(of: "."), dot > 0 else { return "\(name) (\(number))" }
        var split = dot
        let stem = String(characters[..<dot])
        if stem.lowercased().hasSuffix(".tar"), stem.count > 4 { split = dot - 4 }
        return String(characters[..<split]) + " (\(number))" + String(characters[split...])
    }

    /// The first path in `directory` for `name` that replaces nothing: free (neither the file nor a part
    /// file exists), or holding an unfinished download of `url` to resume. Blocking: runs on the
    /// BlockingWorker. Throws `localWriteFailed(EEXIST)` when `maxAttempts` names are all taken.
    static func freePath(in directory: String, for name: String, url: String) throws(HTTPWireError) -> String {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        for number in 0..<maxAttempts {
            let candidate = prefix + numbered(name, number)
            let file = DownloadPartialFile(destination: candidate)
            let hasFile = DownloadPartialFile.fileSize(atPath: candidate) != nil
            let hasPart = DownloadPartialFile.fileSize(atPath: file.partialPath) != nil
            if !hasFile && !hasPart { return candidate }
            if !hasFile, hasPart, case .valid(let record) = ResumeRecord.load(fromPath: file.recordPath),
                record.url == url
            {
                return candidate
            }
        }
        throw .localWriteFailed(path: prefix + name, errno: EEXIST)
    }
}

// ResumeRestartCause+Description: why a download started over, in words a log or a person can read.
// Downloads layer: text only. `print(cause)` used to show the enum's structure
// (`serverAnswer(HTTPWire.ResumeRestartCause.RestartReason.rangeIgnored)`); these sentences say what happened
// and, where it is the reason, which HTTP rule made the bytes on disk unusable.

extension ResumeRestartCause: CustomStringConvertible {
    /// One sentence: "the server sent the whole file instead of the range (…)".
    ///
    /// ```swift
    /// for await event in download.events {
    ///     if case .restarted(let cause) = event { print("starting again from byte 0: \(cause)") }
    /// }
    /// ```
    public var description: String {
        switch self {
        case .requested: return "a restart was asked for (DownloadOptions.restart)"
        case .notResumable(let reason): return reason.description
        case .serverAnswer(let reason): return reason.description
        }
    }
}

extension ResumeRestartCause.FreshReason: CustomStringConvertible {
    /// Why nothing on disk could be resumed from, in one sentence.
    public var description: String {
        switch self {
        case .noPartialFile: return "there is no partial file on disk"
        case .noRecord: return "the partial file has no valid resume record, so its bytes cannot be trusted"
        case .differentURL: return "the partial data came from another URL"
        case .nothingCommitted: return "the resume record counts no committed bytes"
        case .partialFileTooShort(let committed, let size):
            return "the partial file holds \(size) bytes, fewer than the \(committed) its record counts"
        case .noValidator:
            return "the server gave no ETag or Last-Modified to resume safely against (If-Range, RFC 9110 §13.1.5)"
        case .methodNotResumable:
            return "only a GET without a body can be resumed (Range is defined for GET, RFC 9110 §14.2)"
        }
    }
}

extension ResumeRestartCause.RestartReason: CustomStringConvertible {
    /// What in the server's answer to the resume request showed the bytes on disk cannot be continued.
    public var description: String {
        switch self {
        case .rangeIgnored:
            return "the server sent the whole file instead of the range (it changed, or the server ignores Range)"
        case .representationChanged: return "the server's file changed (its ETag or Last-Modified is new)"
        case .unexpectedRangeStart(let expected, let received):
            return "the server answered from byte \(received) instead of \(expected)"
        case .lengthChanged(let expected, let received):
            return "the file's length changed from \(expected) to \(received) bytes"
        case .notSatisfiable(let length):
            let known = length.map { " (the file is \($0) bytes)" } ?? ""
            return "the server cannot serve the rest: 416 Range Not Satisfiable\(known)"
        }
    }
}

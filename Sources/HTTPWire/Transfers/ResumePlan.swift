// ResumePlan: the pure decisions of a resumable download: what to ask for, and what to do with the answer.
// Features layer: no I/O, no clock. The client gathers the facts (the record, the part file's size, the
// response status and fields), asks the plan, and performs what it says.
//
// Two rules shape everything here. First, never splice wrong bytes: a byte is appended to the part file only
// when the server's `Content-Range` says it continues exactly where the file ends, and nothing suggests the
// representation changed. Second, prefer starting over to guessing: every doubtful answer leads to a fresh
// download, which costs bandwidth but never corrupts a file. This file must not touch files or sockets.

import HTTPWireCodec

/// Decides how a download continues from a partial file, before the request and after the response head.
///
/// ```swift
/// let plan = ResumePlan(url: url, record: record, partialFileSize: sizeOnDisk)
/// for field in plan.requestFields { request.fields.append(field) }   // Range + If-Range, or nothing
/// switch plan.decision(status: head.status.rawValue, fields: head.fields) {
/// case .append(let offset, _, _): ...                         // truncate part file to offset, append body
/// case .writeFromStart: ...                                   // truncate to 0, write this body
/// case .restartWithoutRange: ...                              // discard this body, ask again without Range
/// case .complete: ...                                         // rename the part file into place
/// case .fail(let error): throw error
/// }
/// ```
///
/// A client follows `.restartWithoutRange` at most once per download: the second request carries no
/// `Range`, so its answer is a plain 200 or an error, and the plan cannot send it round in circles.
struct ResumePlan: Sendable, Hashable {
    /// Why a download starts at byte zero (public, as ``ResumeRestartCause/FreshReason``).
    typealias FreshReason = ResumeRestartCause.FreshReason
    /// Why a resume request's answer leads to starting over (``ResumeRestartCause/RestartReason``).
    typealias RestartReason = ResumeRestartCause.RestartReason

    /// Where the download starts.
    enum Start: Sendable, Hashable {
        /// From byte zero, with no `Range` field; the part file is truncated.
        case fresh(FreshReason)
        /// From `offset`: the part file is truncated to `offset` (bytes past the committed count may be
        /// garbage after a crash) and the response body appended.
        case resume(offset: Int64)
    }

    /// What to do with a response, decided from its status and fields before any body byte is used.
    enum Decision: Sendable, Hashable {
        /// 206 continuing exactly at `offset`: append the body there. `range` is what the body holds;
        /// `completeLength` the expected final size when known (from `Content-Range` or the record). If the
        /// range ends before the complete length, another resume fetches the rest.
        case append(offset: Int64, range: ClosedRange<Int64>, completeLength: Int64?)
        /// 200: the body is the whole representation. Truncate the part file to zero, write the body, and
        /// build a new record from this response's validators. `reason` is nil for a fresh request.
        case writeFromStart(reason: RestartReason?)
        /// The body must not be written: discard it, truncate the part file, and send the request again
        /// without `Range`.
        case restartWithoutRange(RestartReason)
        /// 416 and the server's complete length equals the bytes on disk: the part file is the whole
        /// representation already; rename it into place.
        case complete(length: Int64)
        /// The download fails: `httpStatus` for a status a download cannot use (redirects are followed by
        /// the client before the plan sees a response), `malformedResponse` for a 206 whose
        /// `Content-Range` is missing or invalid.
        case fail(HTTPWireError)
    }

    /// Where this download starts.
    let start: Start
    /// The record the plan resumes from; nil for a fresh start.
    let record: ResumeRecord?
    /// The fields to add to the GET: `Range: bytes=N-` and, when a validator allows, `If-Range`. Empty for
    /// a fresh start.
    let requestFields: HTTPFields

    /// The byte the response body should start at: the resume offset, or zero.
    var offset: Int64 {
        switch start {
        case .fresh: return 0
        case .resume(let offset): return offset
        }
    }

    /// Plans the request for `url` from what is on disk.
    ///
    /// - Parameters:
    ///   - url: The URL about to be requested; a record for another URL is not used.
    ///   - record: The decoded record, or nil when there is none or it was unusable.
    ///   - partialFileSize: The part file's size, or nil when it does not exist.
    ///   - requiresValidator: When true (the default), a download resumes only if `If-Range` can be sent.
    ///     Without it the server cannot tell us the file changed, and a changed file would be spliced
    ///     silently. False resumes like `curl -C -` does, relying only on the checks done on the 206.
    ///
    /// `If-Range` follows RFC 9110 §13.1.5: a strong `ETag` is used when the record has one. A weak one
    /// must not be sent, and then the date must not be sent either (the rule allows a date only when the
    /// client has *no* entity tag). With no entity tag at all, `Last-Modified` is sent; the RFC wants the
    /// date to be a strong validator (§8.8.2.2), which HTTPWire assumes rather than checks: the 206's
    /// `Content-Range` and validators are still checked before a byte is appended.
    init(url: String, record: ResumeRecord?, partialFileSize: Int64?, requiresValidator: Bool = true) {
        func fresh(_ reason: FreshReason) -> (Start, ResumeRecord?, HTTPFields) { (.fresh(reason), nil, [:]) }

        let planned: (Start, ResumeRecord?, HTTPFields)
        if let partialFileSize {
            if let record {
                if record.url != url {
                    planned = fresh(.differentURL)
                } else if record.committedBytes == 0 {
                    planned = fresh(.nothingCommitted)
                } else if partialFileSize < record.committedBytes {
                    planned = fresh(
                        .partialFileTooShort(committedBytes: record.committedBytes, partialFileSize: partialFileSize))
                } else {
                    var fields = HTTPFields()
                    if let range = ByteRange(from: record.committedBytes) {
                        fields.append(name: "Range", value: range.headerValue)
                    }
                    if let validator = Self.ifRangeValidator(for: record) {
                        fields.append(name: "If-Range", value: validator)
                        planned = (.resume(offset: record.committedBytes), record, fields)
                    } else if requiresValidator {
                        planned = fresh(.noValidator)
                    } else {
                        planned = (.resume(offset: record.committedBytes), record, fields)
                    }
                }
            } else {
                planned = fresh(.noRecord)
            }
        } else {
            planned = fresh(.noPartialFile)
        }
        (start, self.record, requestFields) = planned
    }

    /// The value for `If-Range`, or nil when the record has none RFC 9110 §13.1.5 allows.
    private static func ifRangeValidator(for record: ResumeRecord) -> String? {
        if let entityTag = record.entityTag {
            // A malformed tag counts as a tag: it blocks the date too, and is not sent.
            guard let tag = EntityTag(entityTag), !tag.isWeak else { return nil }
            return entityTag
        }
        return record.lastModified
    }

    /// Decides what to do with the response head to the planned request.
    func decision(status: Int, fields: HTTPFields) -> Decision {
        let isResume = record != nil
        switch status {
        case 200:
            return .writeFromStart(reason: isResume ? .rangeIgnored : nil)
        case 206:
            return decisionForPartialContent(fields: fields)
        case 416 where isResume:
            // RFC 9110 §15.5.17: the server sends `bytes */length`. Equal to what is on disk means done.
            let contentRange = fields["Content-Range"].flatMap { try? ContentRange(parsing: $0) }
            let length = contentRange?.range == nil ? contentRange?.completeLength : nil
            if let length, length == offset, record?.expectedLength.map({ $0 == length }) ?? true {
                return .complete(length: length)
            }
            return .restartWithoutRange(.notSatisfiable(completeLength: length))
        default:
            return .fail(.httpStatus(status))
        }
    }

    /// 206 (RFC 9110 §15.3.7): a single-part answer must carry `Content-Range`; it is checked against the
    /// offset, the record's validators and the record's length before any byte is appended.
    private func decisionForPartialContent(fields: HTTPFields) -> Decision {
        let value = fields["Content-Range"] ?? ""
        guard let contentRange = try? ContentRange(parsing: value), let range = contentRange.range else {
            return .fail(.malformedResponse(.invalidContentRange(preview: ByteClasses.escapedPreview(value.utf8))))
        }
        guard range.lowerBound == offset else {
            guard record != nil else {
                // No Range was sent: restarting would send the same request again. The server is broken.
                return .fail(.malformedResponse(.invalidContentRange(preview: ByteClasses.escapedPreview(value.utf8))))
            }
            return .restartWithoutRange(.unexpectedRangeStart(expected: offset, received: range.lowerBound))
        }
        guard let record else {
            return .append(offset: 0, range: range, completeLength: contentRange.completeLength)
        }
        if let recorded = record.entityTag, let received = fields["ETag"] {
            guard let recordedTag = EntityTag(recorded), let receivedTag = EntityTag(received),
                recordedTag.matches(receivedTag, strongly: !recordedTag.isWeak)
            else { return .restartWithoutRange(.representationChanged) }
        }
        if let recorded = record.lastModified, let received = fields["Last-Modified"], recorded != received {
            return .restartWithoutRange(.representationChanged)
        }
        if let expected = record.expectedLength {
            if let received = contentRange.completeLength, received != expected {
                return .restartWithoutRange(.lengthChanged(expected: expected, received: received))
            }
            if range.upperBound >= expected {
                return .restartWithoutRange(.lengthChanged(expected: expected, received: range.upperBound + 1))
            }
        }
        return .append(
            offset: offset, range: range, completeLength: contentRange.completeLength ?? record.expectedLength)
    }
}

/// An entity tag (RFC 9110 §8.8.3): `W/"opaque"` or `"opaque"`, compared strongly or weakly.
struct EntityTag: Hashable {
    /// The quoted opaque tag, quotes included.
    var opaqueTag: Substring
    /// True for `W/"..."`.
    var isWeak: Bool

    /// Parses `entity-tag = [ weak ] opaque-tag`, `opaque-tag = DQUOTE *etagc DQUOTE`,
    /// `etagc = %x21 / %x23-7E / obs-text`; nil otherwise.
    init?(_ text: String) {
        var rest = Substring(text)
        isWeak = rest.hasPrefix("W/")
        if isWeak { rest = rest.dropFirst(2) }
        let bytes = rest.utf8
        guard bytes.count >= 2, bytes.first == 0x22, bytes.last == 0x22,
            bytes.dropFirst().dropLast().allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) })
        else { return nil }
        opaqueTag = rest
    }

    /// RFC 9110 §8.8.3.2: strong comparison needs both tags strong and equal; weak comparison only equal
    /// opaque tags.
    func matches(_ other: EntityTag, strongly: Bool) -> Bool {
        guard opaqueTag == other.opaqueTag else { return false }
        return !strongly || (!isWeak && !other.isWeak)
    }
}

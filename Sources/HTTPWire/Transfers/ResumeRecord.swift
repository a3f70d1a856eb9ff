// ResumeRecord: the small sidecar file kept beside a partial download, so a later run can resume it.
// Features layer: encoding, strict decoding, and plain synchronous file operations.
//
// A download to `dest` writes its bytes to `dest.part` and, every so often, this record to
// `dest.part.resume`: the URL, the validators the server sent (ETag, Last-Modified), the expected length,
// and how many bytes of `dest.part` are known to be on disk. On completion the part file is renamed to
// `dest` and the record removed. The record is a few `key: value` lines a person can read and a test can
// write by hand. Decoding is strict and never traps: anything doubtful means "start over", because resuming
// from a wrong record would splice wrong bytes into the user's file.
//
// Format version 2 adds two optional keys and is written only when one is used, so a single-stream record
// stays the version 1 text above: `segment:` lines, the per-connection counts of a segmented download
// (`SegmentPlan`), and `boot-id:`, which only the progress mark `dest.part.mark` carries (a record written
// without fsync that is trusted only until the machine reboots; see `DownloadCommitter`).
//
// The file functions here block (open, write, fsync, rename). They must not be called from the cooperative
// thread pool: the client runs them on its `BlockingWorker` thread. This file must not decide whether to
// resume; that is `ResumePlan`.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// What a partial download needs to be resumed safely: where it came from, how to recognise the same
/// representation again, and how many bytes are already committed to disk.
///
/// ```swift
/// let record = ResumeRecord(url: "https://example.test/big.iso", entityTag: "\"v7\"", lastModified: nil,
///                           expectedLength: 4_000_000, committedBytes: 1_048_576)
/// try record.write(toPath: ResumeRecord.recordPath(forDestination: "big.iso"))   // blocking worker only
/// ```
///
/// `committedBytes` follows one rule: the client calls `fsync` on the part file *before* writing a record
/// that counts those bytes. After a crash, bytes past `committedBytes` may be missing or zero-filled, so a
/// resume truncates the part file to `committedBytes` and continues from there.
package struct ResumeRecord: Sendable, Hashable {
    /// The version of the text format written by `encoded()`. A record with any other version is unusable.
    package static let formatVersion = 1

    /// The URL that was asked for, absolute (the download's own URL, before any redirect: the next run
    /// only knows that one). A record for another URL is not used.
    package var url: String
    /// The `ETag` field value exactly as received, weak prefix and quotes included (`"abc"`, `W/"abc"`).
    package var entityTag: String?
    /// The `Last-Modified` field value exactly as received (an HTTP-date, RFC 9110 §8.8.2).
    package var lastModified: String?
    /// The complete length of the representation, when the server announced it.
    package var expectedLength: Int64?
    /// How many leading bytes of the part file were flushed to disk before this record was written. For a
    /// segmented download, the sum of the segments' counts.
    package var committedBytes: Int64
    /// The segments of a download over several connections, in order, covering `0..<expectedLength`
    /// exactly; empty for a single stream, whose bytes are the leading `committedBytes`.
    package var segments: [ResumeSegment]
    /// The kernel's boot identifier when the counts were taken from bytes written but not yet flushed
    /// (the progress mark, `DownloadCommitter`); nil in a record, whose counts are flushed.
    package var bootID: String?

    /// A record with the given values; `encoded()` and `write(toPath:)` check them.
    package init(
        url: String, entityTag: String?, lastModified: String?, expectedLength: Int64?, committedBytes: Int64,
        segments: [ResumeSegment] = [], bootID: String? = nil
    ) {
        self.url = url
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.expectedLength = expectedLength
        self.committedBytes = committedBytes
        self.segments = segments
        self.bootID = bootID
    }

    /// This record with other counts: `committedBytes` (single stream) or `segments` (whose sum becomes
    /// `committedBytes`), and the boot identifier of a mark.
    package func counting(
        _ committedBytes: Int64, segments: [ResumeSegment] = [], bootID: String? = nil
    ) -> ResumeRecord {
        var record = self
        record.segments = segments
        record.committedBytes = segments.isEmpty ? committedBytes : segments.reduce(0) { $0 + $1.committedBytes }
        record.bootID = bootID
        return record
    }

    /// True when `other` describes the same representation: URL, validators and length. A mark is used
    /// instead of its record only then.
    package func isSameRepresentation(as other: ResumeRecord) -> Bool {
        url == other.url && entityTag == other.entityTag && lastModified == other.lastModified
            && expectedLength == other.expectedLength
    }

    // MARK: File names

    /// The part file for a destination: `dest.part`. The bytes are written there and renamed to `dest`
    /// only when complete, so `dest` never holds a half-finished download.
    package static func partialFilePath(forDestination destination: String) -> String {
        destination + ".part"
    }

    /// The record for a destination: `dest.part.resume`. It shares the part file's prefix, so the two
    /// sort together in a listing and `rm dest.part*` removes both.
    package static func recordPath(forDestination destination: String) -> String {
        partialFilePath(forDestination: destination) + ".resume"
    }

    /// The progress mark for a destination: `dest.part.mark`, a record of bytes written but not yet
    /// flushed, with the boot it is valid for.
    package static func markPath(forDestination destination: String) -> String {
        partialFilePath(forDestination: destination) + ".mark"
    }

    // MARK: Text format

    private static let magic = "httpwire-resume"
    /// The version written when `segment` or `boot-id` lines are present.
    package static let segmentedFormatVersion = 2
    /// A record is a handful of short lines; anything bigger is not one of ours.
    private static let maxEncodedBytes = 16 * 1024
    /// More segments than this are not one of ours: a download splits into at most a few dozen.
    package static let maxSegments = 256

    /// Why a record cannot be encoded or decoded. It never reaches the user as a failure: an unusable
    /// record means the download starts over.
    package struct Damage: Error, Sendable, Hashable, CustomStringConvertible {
        /// One lowercase line saying what was wrong.
        package var reason: String
        /// The reason.
        package var description: String { reason }
    }

    /// The record as text:
    ///
    /// ```
    /// httpwire-resume 1
    /// url: https://example.test/big.iso
    /// etag: "v7"
    /// expected-length: 4000000
    /// committed-bytes: 1048576
    /// ```
    ///
    /// Absent optional values are left out. Throws `Damage` when a value could not be read back
    /// (a control character, a leading or trailing space, negative or inconsistent numbers): writing it
    /// would only produce a record that decoding rejects.
    ///
    /// A segmented record (version 2) adds one line per segment, `segment: FIRST-LAST COUNT` — the
    /// segment's first and last byte positions (as in `Content-Range`) and how many of its leading bytes
    /// are counted — and a mark adds `boot-id: ...`:
    ///
    /// ```
    /// httpwire-resume 2
    /// url: https://example.test/big.iso
    /// etag: "v7"
    /// expected-length: 4000000
    /// committed-bytes: 1500000
    /// segment: 0-1999999 1000000
    /// segment: 2000000-3999999 500000
    /// ```
    package func encoded() throws(Damage) -> String {
        try validate()
        let isVersion2 = !segments.isEmpty || bootID != nil
        var text = "\(Self.magic) \(isVersion2 ? Self.segmentedFormatVersion : Self.formatVersion)\n"
        text += "url: \(url)\n"
        if let entityTag { text += "etag: \(entityTag)\n" }
        if let lastModified { text += "last-modified: \(lastModified)\n" }
        if let expectedLength { text += "expected-length: \(expectedLength)\n" }
        text += "committed-bytes: \(committedBytes)\n"
        for segment in segments {
            text += "segment: \(segment.range.lowerBound)-\(segment.range.upperBound - 1) \(segment.committedBytes)\n"
        }
        if let bootID { text += "boot-id: \(bootID)\n" }
        return text
    }

    /// Decodes a record written by `encoded()`. Strict: the first line must be `httpwire-resume 1`; every
    /// other line is `key: value` with a known key at most once; `url` and `committed-bytes` are required;
    /// numbers are plain decimal; `committed-bytes` may not exceed `expected-length`; every line ends with
    /// LF (a record cut short by a crash is refused). Throws `Damage`, never traps.
    package init(decoding bytes: some Sequence<UInt8>) throws(Damage) {
        let bytes = Array(bytes)
        guard bytes.count <= Self.maxEncodedBytes else { throw Damage(reason: "record larger than 16 KiB") }
        guard bytes.last == UInt8(ascii: "\n") else { throw Damage(reason: "record does not end with a newline") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Damage(reason: "record is not UTF-8")
        }
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        let header = lines.popFirst().flatMap { String($0) }
        let isVersion2 = header == "\(Self.magic) \(Self.segmentedFormatVersion)"
        guard isVersion2 || header == "\(Self.magic) \(Self.formatVersion)" else {
            throw Damage(reason: "not a version \(Self.formatVersion) or \(Self.segmentedFormatVersion) resume record")
        }
        var values: [String: String] = [:]
        var segments: [ResumeSegment] = []
        for line in lines {
            guard let line = String(line), let colon = line.firstIndex(of: ":") else {
                throw Damage(reason: "line without a colon")
            }
            let key = String(line[..<colon])
            let rest = line[line.index(after: colon)...]
            guard rest.hasPrefix(" ") else { throw Damage(reason: "no space after \(key):") }
            let keys = ["url", "etag", "last-modified", "expected-length", "committed-bytes"]
            let version2Keys = ["segment", "boot-id"]
            guard keys.contains(key) || (isVersion2 && version2Keys.contains(key)) else {
                throw Damage(reason: "unknown key \(ByteClasses.escapedPreview(key.utf8))")
            }
            if key == "segment" {
                guard segments.count < Self.maxSegments else { throw Damage(reason: "too many segments") }
                segments.append(try ResumeSegment(decoding: rest.dropFirst()))
                continue
            }
            guard values[key] == nil else { throw Damage(reason: "duplicate key \(key)") }
            values[key] = String(rest.dropFirst())
        }
        // Version 2 is written only when one of its keys is needed; without them it is not one of ours.
        if isVersion2, segments.isEmpty, values["boot-id"] == nil {
            throw Damage(reason: "version \(Self.segmentedFormatVersion) record without segments or boot-id")
        }
        guard let url = values["url"] else { throw Damage(reason: "missing url") }
        guard let committed = values["committed-bytes"] else { throw Damage(reason: "missing committed-bytes") }
        self.url = url
        self.entityTag = values["etag"]
        self.lastModified = values["last-modified"]
        self.committedBytes = try Self.decimal(committed, key: "committed-bytes")
        self.expectedLength = try values["expected-length"].map { value throws(Damage) in
            try Self.decimal(value, key: "expected-length")
        }
        self.segments = segments
        self.bootID = values["boot-id"]
        try validate()
    }

    /// The rules both directions share, so `encoded()` never writes what decoding would reject.
    private func validate() throws(Damage) {
        for (key, value) in [("url", url), ("etag", entityTag), ("last-modified", lastModified), ("boot-id", bootID)] {
            guard let value else { continue }
            guard !value.isEmpty else { throw Damage(reason: "empty \(key)") }
            // Control bytes (CR, LF, NUL, ...) would break the line structure; edge spaces would not
            // survive a hand edit. Field values from a parsed head never contain the former (RFC 9110 §5.5).
            guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
                throw Damage(reason: "control character in \(key)")
            }
            guard value.first != " ", value.last != " " else { throw Damage(reason: "space around \(key)") }
        }
        guard committedBytes >= 0 else { throw Damage(reason: "negative committed-bytes") }
        if let expectedLength {
            guard expectedLength >= 0 else { throw Damage(reason: "negative expected-length") }
            guard committedBytes <= expectedLength else {
                throw Damage(reason: "committed-bytes \(committedBytes) beyond expected-length \(expectedLength)")
            }
        }
        try validateSegments()
    }

    /// Segments must tile the whole representation in order — no gap, no overlap — each counting at most
    /// its own length, and their counts must add up to `committedBytes`: a record whose segments disagree
    /// with each other would make a resume write bytes in the wrong place.
    private func validateSegments() throws(Damage) {
        guard !segments.isEmpty else { return }
        guard let expectedLength else { throw Damage(reason: "segments without expected-length") }
        guard segments.count <= Self.maxSegments else { throw Damage(reason: "too many segments") }
        var next: Int64 = 0
        var sum: Int64 = 0
        for segment in segments {
            guard segment.range.lowerBound == next else {
                throw Damage(reason: "segment at \(segment.range.lowerBound) where \(next) was expected")
            }
            guard !segment.range.isEmpty else { throw Damage(reason: "empty segment at \(next)") }
            guard segment.committedBytes >= 0, segment.committedBytes <= segment.length else {
                throw Damage(reason: "segment at \(next) counts more bytes than it holds")
            }
            next = segment.range.upperBound
            sum += segment.committedBytes
        }
        guard next == expectedLength else { throw Damage(reason: "segments end at \(next), not \(expectedLength)") }
        guard sum == committedBytes else {
            throw Damage(reason: "segments count \(sum) bytes, committed-bytes says \(committedBytes)")
        }
    }

    /// `1*DIGIT` as Int64, at most 18 digits so it cannot overflow.
    static func decimal(_ text: String, key: String) throws(Damage) -> Int64 {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int64(text)
        else { throw Damage(reason: "\(key) is not a decimal number") }
        return value
    }

    // MARK: Files (blocking: run on the BlockingWorker thread)

    /// The result of looking for a record on disk.
    package enum Loaded: Sendable, Hashable {
        /// A valid record.
        case valid(ResumeRecord)
        /// A record that exists but cannot be used (damaged, unreadable, too large); start over.
        case unusable(reason: String)
    }

    /// Reads the record at `path`. Nil when there is no file; `.unusable` when it cannot be read or
    /// decoded. Never throws: every failure here just means the download starts from byte zero.
    /// Blocking: call it from the blocking worker thread.
    static func load(fromPath path: String) -> Loaded? {
        load(fromPath: path, strippingPadding: false)
    }

    /// Loads a progress mark: a record, followed by the NUL bytes that ``writeMark(into:paddingTo:)`` may
    /// leave after a shorter mark (nil when there is no file).
    static func loadMark(fromPath path: String) -> Loaded? {
        load(fromPath: path, strippingPadding: true)
    }

    private static func load(fromPath path: String, strippingPadding: Bool) -> Loaded? {
        var bytes: [UInt8]
        do throws(TransportError) {
            guard let contents = try FileSystem.contents(ofPath: path, limit: maxEncodedBytes) else { return nil }
            bytes = contents
            if strippingPadding, let end = bytes.lastIndex(where: { $0 != 0 }) { bytes.removeSubrange((end + 1)...) }
        } catch .fileReadFailed(_, _, EFBIG) {
            return .unusable(reason: "record larger than 16 KiB")
        } catch {
            return .unusable(reason: "cannot read record: \(error)")
        }
        do {
            return .valid(try ResumeRecord(decoding: bytes))
        } catch {
            return .unusable(reason: error.reason)
        }
    }

    /// Replaces the record at `path` atomically: writes `path.tmp`, fsyncs it, renames it over `path`, and
    /// fsyncs the directory so the rename itself survives a power cut (`FileSystem.replaceAtomically`). A
    /// reader sees the old record or the new one, never half of either. Blocking: call it from the blocking
    /// worker thread. One download per destination at a time: two writers would share the temporary file.
    /// Throws `localWriteFailed` with the failing path and errno (EINVAL when the record's values could not
    /// be encoded).
    func write(toPath path: String) throws(HTTPWireError) {
        guard let text = try? encoded() else { throw HTTPWireError.localWriteFailed(path: path, errno: EINVAL) }
        try HTTPWireError.local { () throws(TransportError) in
            try FileSystem.replaceAtomically(path, with: Array(text.utf8))
        }
    }

    /// Rewrites the progress mark in place in `file`, which its writer keeps open: one pwrite at offset 0
    /// of the text and then NUL bytes up to `length` (the longest mark written to it before), so no byte of
    /// an older, longer mark is left behind and no truncate is needed. Returns the bytes written. Blocking.
    ///
    /// Why in place: no create and no rename, so no journal transaction to wait for — on a disk busy with
    /// fsyncs, the rename that replaced the mark before measured up to 84 ms (its 99th percentile 59 ms), and a
    /// kill in that time lost what the mark had not counted yet. A process kill cannot tear a write that
    /// fits in one 4 KiB page (the kernel checks for a fatal signal before each page it copies, not inside
    /// one); a longer mark torn by a kill, or one cut by a power loss, fails to decode and sends the next run
    /// back to the record. Throws `localWriteFailed`.
    func writeMark(into file: DiskFile, paddingTo length: Int) throws(HTTPWireError) -> Int {
        guard let text = try? encoded() else { throw HTTPWireError.localWriteFailed(path: file.path, errno: EINVAL) }
        var bytes = Array(text.utf8)
        if bytes.count < length { bytes.append(contentsOf: repeatElement(0, count: length - bytes.count)) }
        try HTTPWireError.local { () throws(TransportError) in
            try bytes.withUnsafeBytes { buffer in
                Result { () throws(TransportError) in try file.write(buffer, at: 0) }
            }.get()
        }
        return bytes.count
    }

    /// Deletes the record at `path`; a missing file is not an error. Blocking.
    static func remove(atPath path: String) throws(HTTPWireError) {
        try HTTPWireError.local { () throws(TransportError) in try FileSystem.remove(path) }
    }
}

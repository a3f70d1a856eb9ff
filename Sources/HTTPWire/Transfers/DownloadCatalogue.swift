// DownloadCatalogue: the list of a `DownloadManager`'s items as it is kept on disk, and its strict reader.
// Downloads layer: a value, its text form, and one atomic file write (through the transport's
// `FileSystem`, on the BlockingWorker). It must not start, stop or schedule downloads; `DownloadManager`
// does, and the bytes of each download stay in its own part file and resume record.
//
// The catalogue is untrusted input: a file a crash may have torn, another program may have written, or a
// person may have edited. So the reader is a small pure function of bytes (fuzzable on its own), strict,
// and never traps: anything it does not fully understand is `Damage` with a reason, and the manager refuses
// to start rather than lose or invent items. The writer replaces the file atomically (write, fsync,
// rename, fsync the directory), so a crash leaves the old catalogue or the new one, never a mixture.
//
// The text form, one block per item, each key at most once, every line ending in "\n":
//
//     httpwire-catalogue 1
//     item: 3
//     url: https://example.test/big.iso
//     destination: /data/big.iso
//     priority: 0
//     state: paused
//     end

import HTTPWireTransport

/// A manager's items as persisted: identity, where, how urgent, and the state to come back in.
///
/// ```swift
/// let catalogue = try DownloadCatalogue(decoding: bytes)   // throws Damage for a torn or foreign file
/// for entry in catalogue.entries { print(entry.id, entry.state) }
/// ```
package struct DownloadCatalogue: Sendable, Hashable {
    /// How an item comes back after a restart.
    package enum PersistedState: String, Sendable, Hashable {
        /// Queued or running when saved: it is queued again, and resumes from its part file.
        case queued
        /// Paused by the app: stays paused.
        case paused
        /// Cancelled by the app: stays stopped, its partial data kept.
        case cancelled
        /// Failed: comes back paused (the error itself is not kept), ready for `resume`.
        case failed
        /// Finished: `bytes` (and `sha256`, when computed) say what was saved.
        case completed
    }

    /// One item.
    package struct Entry: Sendable, Hashable {
        package var id: Int
        package var url: String
        package var destination: String
        package var priority: Int
        package var state: PersistedState
        /// The finished file's size, for `completed`.
        package var bytes: Int64?
        /// The finished file's SHA-256 in hex, for `completed` items whose digest was computed.
        package var sha256: String?

        /// An entry with the given values; `encoded()` and decoding check them.
        package init(
            id: Int, url: String, destination: String, priority: Int, state: PersistedState, bytes: Int64? = nil,
            sha256: String? = nil
        ) {
            self.id = id
            self.url = url
            self.destination = destination
            self.priority = priority
            self.state = state
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    /// The items, in the order they were added.
    package var entries: [Entry]

    /// A catalogue of `entries`.
    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// Why a catalogue cannot be read: one lowercase line.
    package struct Damage: Error, Sendable, Hashable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    static let magic = "httpwire-catalogue 1"
    /// A catalogue larger than this is not one of ours (a hundred thousand items is ~20 MiB).
    package static let maxEncodedBytes = 32 << 20
    /// The file name inside the directory the app chooses.
    package static let fileName = "downloads.catalogue"

    // MARK: Text form

    /// The text form shown in the file comment. Throws `Damage` for a value decoding would reject.
    package func encoded() throws(Damage) -> String {
        var text = Self.magic + "\n"
        var seen = Set<Int>()
        for entry in entries {
            try Self.validate(entry)
            guard seen.insert(entry.id).inserted else { throw Damage(reason: "duplicate item \(entry.id)") }
            text += "item: \(entry.id)\nurl: \(entry.url)\ndestination: \(entry.destination)\n"
            text += "priority: \(entry.priority)\nstate: \(entry.state.rawValue)\n"
            if let bytes = entry.bytes { text += "bytes: \(bytes)\n" }
            if let sha256 = entry.sha256 { text += "sha256: \(sha256)\n" }
            text += "end\n"
        }
        return text
    }

    /// Reads the text form, strictly: the magic line, then blocks of `key: value` lines from `item:` to
    /// `end`, each key at most once, `url`, `destination`, `priority` and `state` required, unique ids, no
    /// control characters, valid UTF-8, and a final newline (a file cut short by a crash has none, or ends
    /// inside a block). Throws `Damage` naming the first problem; never traps.
    package init(decoding bytes: [UInt8]) throws(Damage) {
        guard bytes.count <= Self.maxEncodedBytes else { throw Damage(reason: "catalogue larger than 32 MiB") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Damage(reason: "not UTF-8 text") }
        guard text.hasSuffix("\n") else { throw Damage(reason: "cut short: no final newline") }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }[...]
        guard lines.popFirst() == Self.magic else { throw Damage(reason: "not an httpwire catalogue") }
        var entries: [Entry] = []
        var seen = Set<Int>()
        while let first = lines.popFirst() {
            guard first.hasPrefix("item: ") else { throw Damage(reason: "expected item:, found \(Self.shown(first))") }
            let id = try Self.integer(String(first.dropFirst(6)), key: "item")
            guard id > 0, seen.insert(id).inserted else { throw Damage(reason: "bad or duplicate item \(id)") }
            var values: [String: String] = [:]
            var isClosed = false
            while let line = lines.popFirst() {
                if line == "end" {
                    isClosed = true
                    break
                }
                guard let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" ") else {
                    throw Damage(reason: "item \(id): not a key: value line: \(Self.shown(line))")
                }
                let key = String(line[..<colon])
                guard ["url", "destination", "priority", "state", "bytes", "sha256"].contains(key) else {
                    throw Damage(reason: "item \(id): unknown key \(Self.shown(key))")
                }
                guard values[key] == nil else { throw Damage(reason: "item \(id): duplicate key \(key)") }
                values[key] = String(line[line.index(colon, offsetBy: 2)...])
            }
            guard isClosed else { throw Damage(reason: "item \(id): cut short before end") }
            guard let url = values["url"], let destination = values["destination"],
                let priority = values["priority"], let state = values["state"]
            else { throw Damage(reason: "item \(id): url, destination, priority and state are required") }
            guard let persisted = PersistedState(rawValue: state) else {
                throw Damage(reason: "item \(id): unknown state \(Self.shown(state))")
            }
            let entry = Entry(
                id: id, url: url, destination: destination, priority: try Self.integer(priority, key: "priority"),
                state: persisted,
                bytes: try values["bytes"].map { value throws(Damage) in
                    Int64(try Self.integer(value, key: "bytes"))
                }, sha256: values["sha256"])
            try Self.validate(entry)
            entries.append(entry)
        }
        self.entries = entries
    }

    /// The rules both directions share.
    private static func validate(_ entry: Entry) throws(Damage) {
        for (key, value) in [("url", entry.url), ("destination", entry.destination)] {
            guard !value.isEmpty, value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw Damage(reason: "item \(entry.id): empty \(key) or a control character in it")
            }
        }
        guard entry.destination.hasPrefix("/") else {
            throw Damage(reason: "item \(entry.id): destination is not an absolute path")
        }
        if let bytes = entry.bytes, bytes < 0 { throw Damage(reason: "item \(entry.id): negative bytes") }
        if entry.state == .completed, entry.bytes == nil {
            throw Damage(reason: "item \(entry.id): completed without bytes")
        }
        if let sha256 = entry.sha256, SHA256Digest(hex: sha256) == nil {
            throw Damage(reason: "item \(entry.id): sha256 is not 64 hex digits")
        }
    }

    /// An optional `-`, then at most 18 decimal digits.
    private static func integer(_ text: String, key: String) throws(Damage) -> Int {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int(text)
        else { throw Damage(reason: "\(key) is not a decimal number: \(shown(text))") }
        return value
    }

    /// A value quoted in a reason, cut to 40 characters.
    private static func shown(_ text: String) -> String {
        "\"\(text.prefix(40))\(text.count > 40 ? "..." : "")\""
    }

    // MARK: File

    /// Reads the catalogue in `directory`: nil when there is none yet. Throws
    /// `localReadFailed(path:errno: EBADMSG)` for a torn or foreign file (the file is left as it is, so
    /// nothing is lost), with `reason` set to what was wrong. Blocking.
    package static func load(
        fromDirectory directory: String, reason: inout String?
    ) throws(HTTPWireError) -> DownloadCatalogue? {
        let path = directory + "/" + fileName
        let bytes = try HTTPWireError.local { () throws(TransportError) in
            try FileSystem.contents(ofPath: path, limit: maxEncodedBytes)
        }
        guard let bytes else { return nil }
        do {
            return try DownloadCatalogue(decoding: bytes)
        } catch {
            reason = error.reason
            throw .localReadFailed(path: path, errno: 74)  // EBADMSG: not a catalogue we can trust
        }
    }

    /// Replaces the catalogue in `directory` atomically and durably. Blocking. Throws `localWriteFailed`.
    package func write(toDirectory directory: String) throws(HTTPWireError) {
        let path = directory + "/" + Self.fileName
        guard let text = try? encoded() else { throw .localWriteFailed(path: path, errno: 22) }  // EINVAL
        try HTTPWireError.local { () throws(TransportError) in
            try FileSystem.replaceAtomically(path, with: Array(text.utf8))
        }
    }
}

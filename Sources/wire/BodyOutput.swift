// BodyOutput: where wire writes response bodies — standard output or the file of `-o` (edge layer).
// Bodies arrive as many small slices; writing each with its own write(2) would cost a system call per
// slice, so pieces are gathered in a 64 KiB buffer and written when it fills, when 100 ms have passed
// since the last write (a slow stream still appears as it arrives), and at the end. A piece that comes
// within those 100 ms waits for the next piece, which a live stream (server-sent events, a log) may not
// send for a while: `-N` (curl's `--no-buffer`) writes every piece at once. A failed write —
// a missing directory, a full disk, a reader that closed its end of the pipe (EPIPE; SIGPIPE is ignored
// in main.swift) — is `HTTPWireError.localWriteFailed`, curl's exit 23. Knows nothing about HTTP.

import HTTPWire
import HTTPWireCodec

#if canImport(Glibc)
    import Glibc
#endif

/// A buffered sink for body bytes. Used from one task at a time.
///
/// ```swift
/// let output = BodyOutput(path: command.output)       // nil: standard output
/// for try await piece in response.body { try output.write(piece) }
/// try output.close()
/// ```
final class BodyOutput {
    /// How many bytes are gathered before a write: large enough that 5,000 small bodies cost a few
    /// hundred system calls, small enough to stay in cache.
    static let bufferCapacity = 64 * 1024
    /// The longest a gathered byte waits while more keep arriving slowly.
    static let flushInterval: Duration = .milliseconds(100)

    /// The `-o` path, or nil for standard output.
    let path: String?
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var lastWrite = ContinuousClock.now

    /// Where `-D` sends each response head: nowhere, into this output ahead of the body (`-D -` with the
    /// body on standard output, so the two keep their order), or to an output of its own.
    private enum HeadDump {
        case none, inline
        case separate(BodyOutput)
    }
    private var headDump = HeadDump.none
    /// The heads before each final one (redirects followed, attempts retried), when the command shows heads;
    /// `ClientSettings.withClient` installs it as a middleware.
    let earlierHeads: EarlierHeads?
    /// `--max-filesize`: the most body bytes one response may have; nil for no limit.
    private var maxBodyBytes: Int64?
    /// `-N`: each piece is written at once. A live stream's last events before a pause would otherwise
    /// wait in the buffer until the next piece arrives.
    private var isUnbuffered = false
    /// Body bytes of the current response so far (`writeBody`), against `maxBodyBytes`.
    private var bodyBytes: Int64 = 0

    /// An output to `path` (created or truncated on first use), or to standard output when nil.
    init(path: String?, earlierHeads: EarlierHeads? = nil) {
        self.path = path
        self.earlierHeads = earlierHeads
        buffer.reserveCapacity(Self.bufferCapacity)
    }

    /// The output of `command`'s bodies (`-o`, else standard output), with `-D`'s head dump attached, and
    /// a recorder of the heads before each final one when the command shows heads.
    convenience init(for command: ParsedCommand) {
        self.init(path: command.output, earlierHeads: EarlierHeads.isWanted(by: command) ? EarlierHeads() : nil)
        maxBodyBytes = command.maxFileSize
        isUnbuffered = command.noBuffer
        switch command.dumpHeader {
        case nil: headDump = .none
        case "-" where command.output == nil: headDump = .inline
        case let dump?: headDump = .separate(BodyOutput(path: dump == "-" ? nil : dump))
        }
    }

    /// `-D`: the head as it came on the wire — status line, fields, CRLF after each and an empty line
    /// (RFC 9112 §2.1), as curl's `--dump-header` writes it.
    func dumpHead(version: HTTPVersion, status: Status, reason: String, fields: HTTPFields) throws(HTTPWireError) {
        let target: BodyOutput
        switch headDump {
        case .none: return
        case .inline: target = self
        case .separate(let dump): target = dump
        }
        try target.write(
            text: HeadText.lines(version: version, status: status, reason: reason, fields: fields, lineEnd: "\r\n")
                + "\r\n")
        // A file of its own is flushed per head, so it is complete however the body ends.
        if target !== self { try target.flush() }
    }

    /// The heads received before the final one of this URL's call — each redirect followed, each attempt
    /// retried — written as the final head will be (`-D`; `-i` and `wire head` with an empty line after
    /// each), so the output traces the whole call as `curl -iL` and `curl -IL` do.
    /// After a failure (`includingLast`), every head the call received is one of them.
    func writeEarlierHeads(for command: ParsedCommand, includingLast: Bool = false) throws(HTTPWireError) {
        guard let earlierHeads else { return }
        for head in earlierHeads.takeEarlier(includingLast: includingLast) {
            try dumpHead(version: head.version, status: head.status, reason: head.reason, fields: head.fields)
            if command.include || command.command == .head {
                try write(
                    text: HeadText.lines(
                        version: head.version, status: head.status, reason: head.reason, fields: head.fields) + "\n")
            }
        }
    }

    /// How errors name this output: the path, or "standard output".
    var name: String { path ?? "standard output" }

    /// Opens the file if it is not open yet: call it once the response is known to be wanted, so that
    /// `--fail` on a 404 leaves no empty file behind, while an empty body still creates one (as curl does).
    /// What every command does once a response head is in: `--fail` checks the status (exit 22 before
    /// any byte is written), the output is opened, and `-i` writes the status line and fields first.
    func begin(
        version: HTTPVersion, status: Status, reason: String, fields: HTTPFields, for command: ParsedCommand
    ) throws {
        try writeEarlierHeads(for: command)
        try dumpHead(version: version, status: status, reason: reason, fields: fields)
        bodyBytes = 0
        // --max-filesize: a body announced larger than the limit is not started (curl's exit 63).
        if let maxBodyBytes, let length = fields["Content-Length"].flatMap({ Int64($0) }), length > maxBodyBytes {
            throw HTTPWireError.bodyTooLarge(limit: Int(maxBodyBytes))
        }
        try ClientSettings.check(status, for: command)
        try open()
        if command.include {
            try write(text: HeadText.lines(version: version, status: status, reason: reason, fields: fields) + "\n")
        }
    }

    func open() throws(HTTPWireError) {
        guard fd < 0 else { return }
        guard let path else {
            fd = STDOUT_FILENO
            return
        }
        let opened = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw .localWriteFailed(path: path, errno: errno) }
        fd = opened
    }

    /// Adds a piece of the current response's body: as `write`, after `--max-filesize`'s check. A body
    /// without a Content-Length that grows past the limit stops there (exit 63); what came before it stays.
    func writeBody(_ piece: ArraySlice<UInt8>) throws(HTTPWireError) {
        bodyBytes += Int64(piece.count)
        if let maxBodyBytes, bodyBytes > maxBodyBytes { throw .bodyTooLarge(limit: Int(maxBodyBytes)) }
        try write(piece)
    }

    /// Adds the whole body of a collected response (see `writeBody(_:)`).
    func writeBody(_ body: [UInt8]) throws(HTTPWireError) { try writeBody(body[...]) }

    /// Adds `bytes` to the output; writes when the buffer is full or has waited long enough.
    func write(_ bytes: ArraySlice<UInt8>) throws(HTTPWireError) {
        try open()
        if buffer.count + bytes.count > Self.bufferCapacity {
            try flush()
            // A piece at least as large as the buffer goes out directly instead of being copied first.
            if bytes.count >= Self.bufferCapacity {
                try writeAll(bytes)
                return
            }
        }
        buffer.append(contentsOf: bytes)
        if isUnbuffered || ContinuousClock.now - lastWrite >= Self.flushInterval { try flush() }
    }

    /// Adds `bytes` to the output.
    func write(_ bytes: [UInt8]) throws(HTTPWireError) { try write(bytes[...]) }

    /// Adds the UTF-8 bytes of `text` to the output (a head printed by `-i`).
    func write(text: String) throws(HTTPWireError) { try write(Array(text.utf8)) }

    /// Writes everything gathered so far.
    func flush() throws(HTTPWireError) {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try writeAll(buffer[...])
    }

    /// Flushes, then closes the file (standard output stays open for the process). Closing reports the
    /// errors a file system may defer until then (NFS, quotas).
    func close() throws(HTTPWireError) {
        if case .separate(let dump) = headDump { try dump.close() }
        try flush()
        guard fd >= 0, fd != STDOUT_FILENO else { return }
        let descriptor = fd
        fd = -1
        if Glibc.close(descriptor) != 0 && errno != EINTR { throw .localWriteFailed(path: name, errno: errno) }
    }

    deinit {
        if fd >= 0 && fd != STDOUT_FILENO { Glibc.close(fd) }
    }

    /// write(2) until every byte is out, continuing after short writes and EINTR.
    private func writeAll(_ bytes: ArraySlice<UInt8>) throws(HTTPWireError) {
        lastWrite = ContinuousClock.now
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw .localWriteFailed(path: name, errno: failure) }
    }
}

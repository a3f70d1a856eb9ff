// MultipartForm: the builder for a multipart/form-data request body (RFC 7578), and `prepare()`, which
// chooses the boundary, measures the files and lays the body out (RFC 2046 §5.1.1).
// Features layer: prepare() stats files but reads none of their bytes, and it never touches a socket.
//
// The body on the wire, for two parts:
//
//     --BOUNDARY CRLF  part 1 head (fields, CRLF CRLF)  content 1 CRLF
//     --BOUNDARY CRLF  part 2 head                       content 2 CRLF
//     --BOUNDARY-- CRLF
//
// RFC 2046 §5.1.1 puts the CRLF that precedes each delimiter inside the delimiter, not in the content, so a
// part's bytes are exactly its content. No preamble and no epilogue are sent. The one thing that could
// break this framing is the delimiter occurring inside a part, so the boundary is random and, for every
// byte we hold in memory, checked: a collision picks a new boundary.

import HTTPWireTransport

/// A multipart/form-data body under construction: fields, in-memory data and files, in order.
///
/// ```swift
/// var form = MultipartForm()
/// form.addField(name: "title", value: "Holiday")
/// form.addFile(name: "userfile[]", path: "/photos/a.heic")
/// form.addFile(name: "userfile[]", path: "/photos/b.jpg")
/// form.addData(name: "thumb", data: pngBytes, fileName: "thumb.png")
/// let body = try form.prepare()   // Content-Type, Content-Length and readers; files are read later
/// ```
public struct MultipartForm: Sendable {
    /// The parts in the order they will be sent. RFC 7578 §5.2: servers may rely on the order, so it is
    /// kept exactly as added.
    public var parts: [MultipartPart]

    /// An empty form.
    public init() {
        parts = []
    }

    /// A form of text fields followed by files, each in the order given; a name may repeat (several files
    /// under `photos[]`). File names and types default as in ``addFile(name:path:fileName:contentType:)``.
    ///
    /// ```swift
    /// let form = MultipartForm(fields: ["album": "Holiday", "public": "no"],
    ///                          files: ["photos[]": "/tmp/a.jpg", "photos[]": "/tmp/b.jpg"])
    /// ```
    public init(fields: KeyValuePairs<String, String> = [:], files: KeyValuePairs<String, String> = [:]) {
        parts = []
        for (name, value) in fields { addField(name: name, value: value) }
        for (name, path) in files { addFile(name: name, path: path) }
    }

    /// Adds a text field, sent as UTF-8 without a Content-Type (RFC 7578 §4.4 and §5.1.2).
    public mutating func addField(name: String, value: String) {
        parts.append(MultipartPart(name: name, content: .text(value)))
    }

    /// Adds a file that is read from disk while the body is sent, never loaded whole.
    ///
    /// - Parameters:
    ///   - name: the form field name; repeat it for several files under one field.
    ///   - path: the file to send; its size is measured when the request is sent.
    ///   - fileName: the `filename` parameter; defaults to the path's last component.
    ///   - contentType: defaults to the type of the file name's extension, else `application/octet-stream`.
    public mutating func addFile(name: String, path: String, fileName: String? = nil, contentType: MediaType? = nil) {
        let shownName = fileName ?? Self.lastPathComponent(of: path)
        parts.append(
            MultipartPart(name: name, content: .file(path: path), fileName: shownName, contentType: contentType))
    }

    /// Adds several files under one field name (RFC 7578 §4.3: each file is its own part, all with the
    /// same `name`), with file names and types defaulted as in ``addFile(name:path:fileName:contentType:)``.
    public mutating func addFiles(name: String, paths: [String]) {
        for path in paths {
            addFile(name: name, path: path)
        }
    }

    /// Adds bytes held in memory, such as an image just encoded.
    ///
    /// Without a `fileName` the part has no `filename` parameter, which many servers read as a plain field
    /// rather than an upload; give one to make it a file. The type defaults from `fileName`'s extension,
    /// else `application/octet-stream`.
    public mutating func addData(
        name: String, data: [UInt8], fileName: String? = nil, contentType: MediaType? = nil
    ) {
        parts.append(MultipartPart(name: name, content: .data(data), fileName: fileName, contentType: contentType))
    }

    /// Adds a part built by hand.
    public mutating func append(_ part: MultipartPart) {
        parts.append(part)
    }

    /// Measures the files, chooses a boundary with the system's random source, and lays the body out.
    ///
    /// Blocking disk I/O (one open and fstat per file): the client runs it on its BlockingWorker thread.
    /// Throws ``HTTPWireError/localReadFailed(path:errno:)`` for a file that cannot be opened or is not a
    /// regular file. A form with no parts becomes just the close delimiter, as browsers send it.
    func prepare() throws(HTTPWireError) -> PreparedMultipartBody {
        var generator = SystemRandomNumberGenerator()
        return try prepare(using: &generator)
    }

    /// `prepare()` with the boundary drawn from `generator`, so tests can force a boundary collision and
    /// examples can be reproducible. Production code should use `prepare()`: the boundary must be
    /// unpredictable to whoever supplies file contents (RFC 2046 §5.1.1 relies on it not occurring there).
    ///
    /// A boundary found in a part head or in in-memory content is replaced by a fresh one until none is,
    /// which with a random generator takes one draw (a collision has probability about 62^-24). File
    /// contents are not scanned: they are not read before sending, and the same odds protect them.
    func prepare<Generator: RandomNumberGenerator>(
        using generator: inout Generator
    ) throws(HTTPWireError) -> PreparedMultipartBody {
        var resolved: [(head: [UInt8], content: ResolvedContent)] = []
        resolved.reserveCapacity(parts.count)
        for part in parts {
            resolved.append((part.headBytes(), try ResolvedContent(part.content)))
        }

        var boundary = Self.randomBoundary(using: &generator)
        while resolved.contains(where: { Self.occurs(boundary, in: $0.head) || $0.content.inMemoryContains(boundary) })
        {
            boundary = Self.randomBoundary(using: &generator)
        }
        return PreparedMultipartBody(boundary: boundary, segments: Self.layOut(resolved, boundary: boundary))
    }

    /// In-memory contents up to this size are copied into the surrounding framing bytes, so a form of
    /// small fields becomes one write; larger ones stay their own segment and are never copied.
    static let coalescingLimit = 16 * 1024

    /// Orders delimiters, heads and contents into segments, merging adjacent small byte runs.
    private static func layOut(
        _ parts: [(head: [UInt8], content: ResolvedContent)], boundary: String
    ) -> [MultipartBodyReader.Segment] {
        var segments: [MultipartBodyReader.Segment] = []
        var pending: [UInt8] = []
        func flushPending() {
            if !pending.isEmpty { segments.append(.bytes(pending)) }
            pending = []
        }
        for part in parts {
            pending.append(contentsOf: "--\(boundary)\r\n".utf8)
            pending.append(contentsOf: part.head)
            switch part.content {
            case .bytes(let bytes) where bytes.count <= coalescingLimit:
                pending.append(contentsOf: bytes)
            case .bytes(let bytes):
                flushPending()
                segments.append(.bytes(bytes))
            case .file(let region):
                flushPending()
                segments.append(.file(region))
            }
            // RFC 2046 §5.1.1: this CRLF belongs to the next delimiter, not to the content.
            pending.append(contentsOf: "\r\n".utf8)
        }
        pending.append(contentsOf: "--\(boundary)--\r\n".utf8)
        flushPending()
        return segments
    }

    /// "HTTPWireBoundary" and 24 letters or digits: 40 characters, well under RFC 2046's 70, and only
    /// characters that need no quoting in the Content-Type parameter. 24 draws from 62 are ~143 bits.
    static func randomBoundary<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var bytes = Array("HTTPWireBoundary".utf8)
        for _ in 0..<24 {
            // next(upperBound:) is unbiased, unlike taking a random byte modulo 62.
            bytes.append(alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// True when the boundary's bytes occur anywhere in `haystack`. Looking for the bare boundary rather than
    /// the full `CRLF--boundary` delimiter is stricter than needed and simpler to trust.
    static func occurs(_ boundary: String, in haystack: [UInt8]) -> Bool {
        let needle = Array(boundary.utf8)
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var start = 0
        while start <= haystack.count - needle.count {
            if haystack[start] == first && haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            start += 1
        }
        return false
    }

    /// The file name a path shows: what follows the last `/` (the path itself when that is empty).
    private static func lastPathComponent(of path: String) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        return components.last.map(String.init) ?? path
    }

    /// A part's content once files have been measured.
    private enum ResolvedContent {
        case bytes([UInt8])
        case file(FileRegion)

        init(_ content: MultipartPart.Content) throws(HTTPWireError) {
            switch content {
            case .text(let text): self = .bytes(Array(text.utf8))
            case .data(let data): self = .bytes(data)
            case .file(let path): self = .file(try FileRegion.wholeFile(at: path))
            }
        }

        func inMemoryContains(_ boundary: String) -> Bool {
            switch self {
            case .bytes(let bytes): return MultipartForm.occurs(boundary, in: bytes)
            case .file: return false
            }
        }
    }
}

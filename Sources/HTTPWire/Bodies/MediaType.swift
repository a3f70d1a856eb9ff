// MediaType: a validated Content-Type value for one part of a multipart body, and the table that guesses it
// from a file extension. Features layer: pure values, no I/O; it never looks inside a file to sniff its type.
//
// A part's Content-Type line is written into the request as-is, so the value must be proven harmless before
// it gets there: a type built from a string that held CR or LF could end the part's head early and let
// the caller (or whoever chose the string) forge headers or whole parts. `MediaType` can only be built from
// a string that passes the grammar check below, so the writer never has to check again.

import HTTPWireCodec

/// A media type such as `image/png` or `text/plain; charset=utf-8`, checked to be safe to write in a header.
///
/// RFC 7578 §4.4: each part of a form may carry a Content-Type; a file part without one is taken as
/// `application/octet-stream` by the receiver, a text field as `text/plain`. HTTPWire picks a type from the
/// file extension when the caller gives none (`MediaType.forFileName(_:)`).
///
/// ```swift
/// let type = MediaType("application/json")            // valid
/// let bad = MediaType("text/plain\r\nX-Evil: 1")      // nil: CR/LF never reach the wire
/// let png = MediaType.forFileName("photo.PNG")         // image/png
/// ```
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The value exactly as it will be written after `Content-Type: `.
    public let value: String

    /// Checks `string` against RFC 9110 §8.3.1 — `type "/" subtype` (both tokens), then optional parameters —
    /// and returns nil when it does not fit.
    ///
    /// The parameters after the first `;` are not parsed one by one; they only have to consist of bytes
    /// that a field value may hold (RFC 9110 §5.5: no CR, LF, NUL or other control bytes). That is enough
    /// to keep the head well-formed, which is the property the writer relies on.
    public init?(_ string: String) {
        let bytes = Array(string.utf8)
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        guard slash < end else { return nil }
        let type = bytes[..<slash]
        let subtype = bytes[(slash + 1)..<end].reversed().drop(while: ByteClasses.isWhitespace).reversed()
        guard !type.isEmpty, type.allSatisfy(ByteClasses.isTokenByte) else { return nil }
        guard !subtype.isEmpty, subtype.allSatisfy(ByteClasses.isTokenByte) else { return nil }
        guard bytes[end...].allSatisfy(ByteClasses.isFieldValueByte) else { return nil }
        // RFC 9110 §5.5: a field value has no leading or trailing whitespace; the type starts with a token.
        guard let last = bytes.last, !ByteClasses.isWhitespace(last) else { return nil }
        value = string
    }

    /// A type from the table below, known to be valid; only this file builds one without the check.
    private init(trusted value: String) {
        self.value = value
    }

    /// The value, as written in the header.
    public var description: String { value }

    /// `application/octet-stream`: RFC 2046 §4.5.1's "arbitrary binary data", the default for file parts
    /// whose extension the table does not know (RFC 7578 §4.4).
    public static let octetStream = MediaType(trusted: "application/octet-stream")

    /// The type for a file name's extension (case-insensitive), or ``octetStream`` for an unknown or missing
    /// extension. Only the last extension counts: `archive.tar.gz` is `application/gzip`.
    package static func forFileName(_ fileName: String) -> MediaType {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return octetStream }
        let fileExtension = fileName[fileName.index(after: dot)...].lowercased()
        guard let known = typesByExtension[fileExtension] else { return octetStream }
        return MediaType(trusted: known)
    }

    /// Common types by lowercase extension. Names follow the IANA media type registry; where browsers
    /// disagree with an older registration (`.js`), the current registration wins (RFC 9239 for JavaScript).
    private static let typesByExtension: [String: String] = [
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "bmp": "image/bmp", "ico": "image/vnd.microsoft.icon",
        "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic", "heif": "image/heif",
        "avif": "image/avif",
        // Documents and text
        "pdf": "application/pdf", "txt": "text/plain", "text": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "xml": "application/xml", "json": "application/json", "js": "text/javascript",
        "mjs": "text/javascript", "wasm": "application/wasm", "yaml": "application/yaml",
        "yml": "application/yaml", "rtf": "application/rtf",
        // Audio and video
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "flac": "audio/flac",
        "m4a": "audio/mp4", "aac": "audio/aac", "mp4": "video/mp4", "m4v": "video/mp4", "webm": "video/webm",
        "mov": "video/quicktime", "mkv": "video/x-matroska", "avi": "video/x-msvideo",
        // Archives
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "7z": "application/x-7z-compressed", "zst": "application/zstd",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
    ]
}

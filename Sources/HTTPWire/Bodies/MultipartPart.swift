// MultipartPart: one entry of a multipart/form-data body — a text field, bytes in memory, or a file on
// disk — and how its head (Content-Disposition, Content-Type) is written.
// Features layer: builds small header byte arrays; it never reads the file a part names.
//
// The head is where caller-chosen strings (field names, file names) meet the wire, so this file owns the
// escaping rule. RFC 7578 §4.2 sends names as quoted-string parameters; quoted-string cannot carry CR or
// LF at all, and a raw `"` would end the value early. Two conventions exist for the rest:
//
// - backslash escapes (`\"`, `\\`), the quoted-pair of RFC 9110 §5.6.4, which older MIME libraries read;
// - percent-encoding of `"`, CR and LF as `%22`, `%0D`, `%0A`, which is what the WHATWG HTML standard's
//   "multipart/form-data encoding algorithm" specifies, what every browser sends, and what curl sends
//   since 7.81 — so it is what servers actually expect. RFC 7578 §2 also names percent-encoding.
//
// HTTPWire uses the browsers' convention and extends it a little: besides `"`, CR and LF it also encodes
// `\` (as `%5C`) and every other control byte (0x00–0x1F, 0x7F). A raw backslash is harmless to a WHATWG
// parser but an escape character to an RFC-style one (`name="a\"` would swallow the closing quote), and
// the two would disagree about where the value ends; encoding it leaves nothing for them to disagree on.
// The cost is the browsers' too: a literal `%22` in a name is indistinguishable from an encoded `"`.
// Non-ASCII names are written as raw UTF-8 (RFC 7578 §5.1.3); `filename*` (RFC 8187) is not used,
// because RFC 7578 §4.2 says it MUST NOT be.

/// One part of a ``MultipartForm``: a field name, its content, and optionally a file name and a type.
///
/// Build parts through ``MultipartForm``'s `add…` methods or the static constructors here; a part is a
/// plain value and does not touch the disk until the body is prepared and sent.
public struct MultipartPart: Sendable, Hashable {
    /// Where a part's bytes come from.
    public enum Content: Sendable, Hashable {
        /// A form field's value, sent as its UTF-8 bytes with no Content-Type (RFC 7578 §4.4: the
        /// receiver assumes `text/plain`). Line breaks are sent exactly as given.
        case text(String)
        /// Bytes already in memory, such as an encoded image.
        case data([UInt8])
        /// A file read from disk while the body is sent; only its size is read when the body is prepared.
        case file(path: String)
    }

    /// The form field name (`name` in Content-Disposition, RFC 7578 §4.2). Several parts may share one,
    /// which is how a form sends several files for one field (`userfile[]` in PHP's convention).
    public var name: String
    /// The content of the part.
    public var content: Content
    /// The `filename` parameter (RFC 7578 §4.2), or nil to send none. For file parts the form defaults it
    /// to the last component of the path. Servers commonly treat a part with a file name as an upload and
    /// one without as a plain field.
    public var fileName: String?
    /// The part's Content-Type, or nil for the default: none for text fields, else the type of the file
    /// name's extension (`MediaType.forFileName(_:)`), else `application/octet-stream`.
    public var contentType: MediaType?

    /// A part with every property given explicitly.
    public init(name: String, content: Content, fileName: String? = nil, contentType: MediaType? = nil) {
        self.name = name
        self.content = content
        self.fileName = fileName
        self.contentType = contentType
    }

    /// The Content-Type that will be sent for this part, after the defaults above are applied.
    public var effectiveContentType: MediaType? {
        if let contentType { return contentType }
        switch content {
        case .text: return nil
        case .data, .file: return fileName.map(MediaType.forFileName) ?? .octetStream
        }
    }

    /// The part's header block, from `Content-Disposition` to the empty line that ends it (RFC 2046 §5.1.1:
    /// a body part is header fields, an empty line, then the content). The delimiter line before it is
    /// written by the body, which knows the boundary.
    func headBytes() -> [UInt8] {
        var head: [UInt8] = []
        head.append(contentsOf: "Content-Disposition: form-data; name=\"".utf8)
        Self.appendEscaped(name, to: &head)
        head.append(UInt8(ascii: "\""))
        if let fileName {
            head.append(contentsOf: "; filename=\"".utf8)
            Self.appendEscaped(fileName, to: &head)
            head.append(UInt8(ascii: "\""))
        }
        head.append(contentsOf: "\r\n".utf8)
        if let type = effectiveContentType {
            head.append(contentsOf: "Content-Type: ".utf8)
            head.append(contentsOf: type.value.utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        head.append(contentsOf: "\r\n".utf8)
        return head
    }

    /// Appends `value` as the inside of a quoted-string, percent-encoding `"`, `\` and the control bytes as
    /// this file's opening comment explains. Bytes of 0x80 and above (UTF-8) pass through unchanged.
    static func appendEscaped(_ value: String, to head: inout [UInt8]) {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        for byte in value.utf8 {
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                head.append(UInt8(ascii: "%"))
                head.append(hexDigits[Int(byte >> 4)])
                head.append(hexDigits[Int(byte & 0x0F)])
            } else {
                head.append(byte)
            }
        }
    }
}

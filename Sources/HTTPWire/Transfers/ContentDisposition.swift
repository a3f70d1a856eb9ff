// ContentDisposition: the file name a server suggests for a download, and how to make it safe to use.
// Features layer: pure string work; no files are touched here.
//
// RFC 6266 lets a response say `Content-Disposition: attachment; filename="report.pdf"`, and RFC 8187 adds
// `filename*=UTF-8''r%C3%A9sum%C3%A9.pdf` for names beyond ASCII. The name comes from the server, so it is
// hostile input: `../../.bashrc` or `/etc/passwd` must never leave the destination directory, a NUL or an
// escape sequence must never reach the file system or a terminal. Parsing and sanitising live together so
// no caller can use a name that skipped the second step. This file must not create or open files.

import HTTPWireCodec

/// The parsed `Content-Disposition` of a response (RFC 6266 §4), and the safe file name derived from it.
///
/// ```swift
/// let name = ContentDisposition.downloadFileName(
///     fieldValue: head.fields["Content-Disposition"], urlLastPathSegment: url.lastPathSegment)
/// // "report.pdf"; never contains "/" or "\", never starts with ".", never empty
/// ```
package struct ContentDisposition: Sendable, Hashable {
    /// The disposition type, lowercased: `attachment`, `inline`, or an extension type.
    package var type: String
    /// The suggested file name exactly as sent (after decoding), not yet safe to use: `filename*` when it
    /// decodes, else `filename`. Use `sanitizedFileName(_:)` before touching the file system.
    package var fileName: String?

    /// The longest file name most Linux file systems accept (NAME_MAX), in UTF-8 bytes.
    package static let maxFileNameBytes = 255
    /// The name used when neither the field nor the URL gives one.
    package static let fallbackFileName = "download"

    /// Parses a field value: `disposition-type *( ";" disposition-parm )` (RFC 6266 §4.1). Nil when the
    /// type is not a token or a parameter is malformed, for instance an unterminated quoted string.
    ///
    /// Parameter names are case-insensitive. RFC 6266 calls repeated parameters invalid; the first one is
    /// used. `filename*` wins over `filename` (RFC 6266 §4.3) when its charset is UTF-8 or ISO-8859-1 and
    /// it decodes; otherwise it is ignored. Leniency: an unquoted `filename` that is not a token (real
    /// servers send `filename=my file.txt`) is read up to the next `;` and trimmed.
    package init?(parsing value: String) {
        var scanner = FieldValueScanner(value)
        scanner.skipWhitespace()
        let type = scanner.token()
        guard !type.isEmpty else { return nil }
        var parameters: [String: String] = [:]
        while true {
            scanner.skipWhitespace()
            if scanner.isAtEnd { break }
            guard scanner.consume(";") else { return nil }
            scanner.skipWhitespace()
            if scanner.isAtEnd { break }  // a trailing ";" is harmless
            let name = scanner.token().lowercased()
            scanner.skipWhitespace()
            guard !name.isEmpty, scanner.consume("=") else { return nil }
            scanner.skipWhitespace()
            let parameterValue: String
            if scanner.peek == "\"" {
                guard let quoted = scanner.quotedString() else { return nil }
                parameterValue = quoted
            } else {
                parameterValue = scanner.rawValue(upTo: ";")
            }
            if parameters[name] == nil { parameters[name] = parameterValue }
        }
        self.type = type.lowercased()
        self.fileName = parameters["filename*"].flatMap(Self.decodeExtendedValue) ?? parameters["filename"]
    }

    /// Decodes an RFC 8187 ext-value: `charset "'" [ language ] "'" value-chars`, where value-chars are
    /// attr-chars and `%XX` escapes. UTF-8 must be supported (RFC 8187 §3.2.1); ISO-8859-1 maps each byte to
    /// the code point of the same number. Nil for other charsets, bad escapes or invalid UTF-8.
    static func decodeExtendedValue(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var input = parts[2].utf8[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard let high = input.popFirst().flatMap(ByteClasses.hexValue),
                    let low = input.popFirst().flatMap(ByteClasses.hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            } else {
                guard byte < 0x80, byte != UInt8(ascii: "'") else { return nil }
                bytes.append(byte)
            }
        }
        switch parts[0].lowercased() {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }

    // MARK: Safe names

    /// Makes a suggested name safe to create inside the destination directory, or nil if nothing usable is
    /// left. The rules, in order:
    ///
    /// 1. Path separators: only the part after the last `/` or `\` is kept, as curl's `--remote-header-name`
    ///    does. `../../etc/passwd` becomes `passwd`; no separator survives, so the name cannot leave the
    ///    directory it is joined to.
    /// 2. Control characters (C0, DEL, C1, NUL included) and the Unicode bidirectional overrides (which can
    ///    disguise `gpj.exe` as `exe.jpg`) are replaced by `_`.
    /// 3. Leading spaces and dots are removed together, until neither is first: `..` and `.` vanish, and
    ///    neither `.bashrc` nor `. .bashrc` becomes a hidden file that overwrites a dot-file.
    /// 4. The name is cut to 255 UTF-8 bytes on a character boundary, keeping an extension of up to 16
    ///    bytes: `very…long.tar.gz` stays a `.gz`.
    /// 5. Trailing spaces are trimmed, after the cut, which can end inside a run of spaces.
    ///
    /// Each rule reads Unicode scalars, so a combining mark after a `/` or `.` hides neither. A sanitised
    /// name is its own sanitised form.
    package static func sanitizedFileName(_ name: String) -> String? {
        // Every rule works on Unicode scalars, not Characters: "/" followed by a combining mark is one
        // Character, so a split on Characters kept that "/" inside the name (a path), and "." followed by one
        // was not a leading dot to drop (a hidden file).
        let all = name.unicodeScalars
        let afterSeparator = all.lastIndex { $0 == "/" || $0 == "\\" }.map { all.index(after: $0) }
        var scalars = String.UnicodeScalarView()
        for scalar in all[(afterSeparator ?? all.startIndex)...] {
            scalars.append(isUnsafe(scalar) ? "_" : scalar)
        }
        // RFC 6266 §4.3: strip leading and trailing whitespace, and names with a special meaning in the file
        // system such as "." and "..". Spaces and dots go in one loop: dropping spaces, then dots, then
        // spaces once each turned ". .bashrc" into ".bashrc", a hidden file replacing the shell's start-up
        // file in a download to the home folder.
        guard let firstKept = scalars.firstIndex(where: { $0 != " " && $0 != "." }) else { return nil }
        let cut = truncated(String(String.UnicodeScalarView(scalars[firstKept...]))).unicodeScalars
        // Trailing spaces go after the cut to 255 bytes: trimmed before it, a cut inside a run of spaces left
        // the name ending in spaces, and sanitising it again gave another name.
        guard let last = cut.lastIndex(where: { $0 != " " }) else { return nil }
        let kept = String(String.UnicodeScalarView(cut[...last]))
        // A first character longer than the whole budget (a base with hundreds of combining marks) leaves
        // only the extension, a hidden name: no usable name, then.
        guard kept.unicodeScalars.first != "." else { return nil }
        return kept
    }

    /// The name to save a download under: the sanitised `Content-Disposition` name, else the sanitised last
    /// path segment of the URL (already percent-decoded, as `TargetURL.lastPathSegment` gives it), else
    /// `download`. Never empty, never a path.
    package static func downloadFileName(fieldValue: String?, urlLastPathSegment: String?) -> String {
        if let fieldValue, let suggested = ContentDisposition(parsing: fieldValue)?.fileName,
            let safe = sanitizedFileName(suggested)
        {
            return safe
        }
        if let urlLastPathSegment, let safe = sanitizedFileName(urlLastPathSegment) { return safe }
        return fallbackFileName
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1: terminal escapes, NUL truncation
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional embedding/override/isolate
        default: return false
        }
    }

    /// Cuts `name` to `maxFileNameBytes` UTF-8 bytes without splitting a character, keeping a short
    /// extension.
    private static func truncated(_ name: String) -> String {
        guard name.utf8.count > maxFileNameBytes else { return name }
        var stem = Substring(name)
        var fileExtension = Substring("")
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8[dot...].count <= 16 {
            stem = name[..<dot]
            fileExtension = name[dot...]
        }
        let budget = maxFileNameBytes - fileExtension.utf8.count
        var kept = ""
        for character in stem {
            guard kept.utf8.count + character.utf8.count <= budget else { break }
            kept.append(character)
        }
        return kept + fileExtension
    }
}

// FieldValueScanner: a cursor over a field value for the common productions of RFC 9110 §5.6 — token,
// quoted-string with quoted-pair, optional whitespace — which parameterised fields share
// (`Content-Disposition`'s parameters, RFC 6266; `WWW-Authenticate`'s challenges, RFC 9110 §11.6.1).
// Codec layer: pure parsing, no I/O.

/// Reads a field value scalar by scalar; each method consumes what it returns.
///
/// ```swift
/// var scanner = FieldValueScanner(#"attachment; filename="a \"b\".txt""#)
/// scanner.token()            // "attachment"
/// ```
package struct FieldValueScanner {
    private let scalars: [Unicode.Scalar]
    private var position = 0

    /// A scanner at the start of `value`.
    package init(_ value: String) { self.scalars = Array(value.unicodeScalars) }

    /// Whether every scalar has been consumed.
    package var isAtEnd: Bool { position == scalars.count }
    /// The next scalar, not consumed; nil at the end.
    package var peek: Unicode.Scalar? { isAtEnd ? nil : scalars[position] }

    /// Skips `OWS` (RFC 9110 §5.6.3): spaces and tabs.
    package mutating func skipWhitespace() {
        while let scalar = peek, scalar == " " || scalar == "\t" { position += 1 }
    }

    /// Consumes `expected` if it is next.
    package mutating func consume(_ expected: Unicode.Scalar) -> Bool {
        guard peek == expected else { return false }
        position += 1
        return true
    }

    /// `token` (RFC 9110 §5.6.2); empty when the next scalar is not a token character.
    package mutating func token() -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek, scalar.isASCII, ByteClasses.isTokenByte(UInt8(scalar.value)) {
            text.append(scalar)
            position += 1
        }
        return String(text)
    }

    /// `quoted-string` with `quoted-pair` (RFC 9110 §5.6.4), unescaped; nil when it does not start with a
    /// quote or the closing quote is missing.
    package mutating func quotedString() -> String? {
        guard consume("\"") else { return nil }
        var text = String.UnicodeScalarView()
        while let scalar = peek {
            position += 1
            switch scalar {
            case "\"": return String(text)
            case "\\":
                guard let escaped = peek else { return nil }
                position += 1
                text.append(escaped)
            default: text.append(scalar)
            }
        }
        return nil
    }

    /// Everything up to `terminator` (or the end), with trailing whitespace trimmed: an unquoted value that
    /// a lenient reader accepts although it is not a token.
    package mutating func rawValue(upTo terminator: Unicode.Scalar) -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek, scalar != terminator {
            text.append(scalar)
            position += 1
        }
        var value = Substring(String(text))
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        return String(value)
    }

    /// Where the cursor is, to come back to with `rewind(to:)` when a look-ahead fails.
    package var mark: Int { position }

    /// Moves the cursor back to a `mark`.
    package mutating func rewind(to mark: Int) { position = mark }
}

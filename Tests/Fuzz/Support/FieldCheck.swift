// FieldCheck: what every field a decoder hands out must look like, whatever bytes it was given.
// Test tooling for Tests/Fuzz, compiled into every target by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// RFC 9110 §5.1 and §5.5, as the decoders apply them: a name is a non-empty token; a value has no
// surrounding whitespace (RFC 9112 §5.1 trims OWS) and never a CR, LF or NUL, the bytes that let a value
// start another field or truncate it in a C-based hop. Other control bytes may remain: FieldLineParser keeps
// them, which RFC 9110 §5.5 allows "for the sake of robustness".

import HTTPWireCodec

/// Checks on decoded fields.
enum FieldCheck {
    /// A description of the first field that breaks the rules above, or nil when all of them hold.
    static func problem(in fields: HTTPFields) -> String? {
        for field in fields {
            guard ByteClasses.isToken(field.name) else { return "field name \(field.name.debugDescription)" }
            let value = field.value.utf8
            if let first = value.first, let last = value.last,
                ByteClasses.isWhitespace(first) || ByteClasses.isWhitespace(last)
            {
                return "untrimmed value of \(field.name): \(field.value.debugDescription)"
            }
            if value.contains(where: { $0 == ByteClasses.cr || $0 == ByteClasses.lf || $0 == 0 }) {
                return "CR, LF or NUL in the value of \(field.name): \(field.value.debugDescription)"
            }
        }
        return nil
    }
}

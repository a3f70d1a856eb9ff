// AuthenticationChallenge: the challenges of a `WWW-Authenticate` (or `Proxy-Authenticate`) field, parsed
// as RFC 9110 §11.6.1 writes them (codec layer: pure parsing, no I/O).
//
//     WWW-Authenticate = #challenge
//     challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//     auth-param       = token BWS "=" BWS ( token / quoted-string )
//
// The grammar is awkward in one place: challenges and their parameters are both separated by commas, so
// `Digest realm="a", nonce="b", Basic realm="c"` is two challenges, and only what follows a comma tells
// whether it continues the current one (`name=`) or starts a new one (`scheme` and a space, or a scheme
// alone). A server may also send several challenges in several field lines; each line is parsed the same
// way and the results joined in order (RFC 9110 §5.3). Parsing is lenient about what it cannot use: an
// item that is neither a parameter nor a scheme ends the parse, keeping the challenges read so far.

/// One challenge: an authentication scheme and its parameters (or its token68).
///
/// ```swift
/// let challenges = AuthenticationChallenge.parse([#"Digest realm="api", qop="auth", nonce="abc", Basic realm="api""#])
/// challenges.map(\.scheme)                 // ["Digest", "Basic"]
/// challenges[0].parameters["qop"]          // "auth"
/// ```
package struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme as sent (`Digest`); compare it case-insensitively (RFC 9110 §11.1).
    package var scheme: String
    /// The parameters, names lowercased (§11.2: they are case-insensitive), values unquoted. The first of
    /// a repeated name wins (each "MUST NOT" appear more than once).
    package var parameters: [String: String]
    /// The token68 form (`Negotiate YIIC...`), when the challenge has one instead of parameters.
    package var token68: String?

    /// Whether the scheme is `name`, ignoring case.
    package func isScheme(_ name: String) -> Bool {
        scheme.lowercased() == name.lowercased()
    }

    /// The challenges of each of `fieldValues` (the field's lines, in order), joined.
    package static func parse(_ fieldValues: [String]) -> [AuthenticationChallenge] {
        fieldValues.flatMap { parse(line: $0) }
    }

    /// The challenges of one field line.
    private static func parse(line: String) -> [AuthenticationChallenge] {
        var scanner = FieldValueScanner(line)
        var challenges: [AuthenticationChallenge] = []
        while true {
            skipSeparators(&scanner)
            if scanner.isAtEnd { break }
            let scheme = scanner.token()
            guard !scheme.isEmpty else { break }
            var challenge = AuthenticationChallenge(scheme: scheme, parameters: [:], token68: nil)
            scanner.skipWhitespace()
            if let token68 = token68(&scanner) {
                challenge.token68 = token68
            } else {
                readParameters(into: &challenge, &scanner)
            }
            challenges.append(challenge)
            // What follows must be a comma (or the end); anything else is a challenge we cannot read.
            scanner.skipWhitespace()
            guard scanner.isAtEnd || scanner.peek == "," else { break }
        }
        return challenges
    }

    /// `#auth-param`: parameters as long as the next list item is `name=`.
    private static func readParameters(
        into challenge: inout AuthenticationChallenge, _ scanner: inout FieldValueScanner
    ) {
        while true {
            let mark = scanner.mark
            skipSeparators(&scanner)
            let name = scanner.token()
            scanner.skipWhitespace()
            guard !name.isEmpty, scanner.consume("=") else {
                scanner.rewind(to: mark)  // a new challenge's scheme, or the end
                return
            }
            scanner.skipWhitespace()
            let value = scanner.peek == "\"" ? scanner.quotedString() : scanner.token()
            guard let value else {
                scanner.rewind(to: mark)  // an unterminated quoted-string: nothing more to read
                return
            }
            let key = name.lowercased()
            if challenge.parameters[key] == nil { challenge.parameters[key] = value }
            scanner.skipWhitespace()
        }
    }

    /// `token68` when it is all that follows the scheme (up to a comma or the end); otherwise nothing is
    /// consumed. `abc=` followed by a comma or the end is a token68 with padding, not a parameter.
    private static func token68(_ scanner: inout FieldValueScanner) -> String? {
        let mark = scanner.mark
        var text = String.UnicodeScalarView()
        while let scalar = scanner.peek, isToken68Character(scalar) {
            text.append(scalar)
            _ = scanner.consume(scalar)
        }
        while scanner.consume("=") { text.append("=") }
        scanner.skipWhitespace()
        let endsHere = scanner.isAtEnd || scanner.peek == ","
        // "name=value" is a parameter: the run of "=" was followed by more.
        guard !text.isEmpty, endsHere, text.first != "=" else {
            scanner.rewind(to: mark)
            return nil
        }
        return String(text)
    }

    /// `token68`'s characters before the padding: ALPHA, DIGIT, `-._~+/`.
    private static func isToken68Character(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~", "+", "/": return true
        default: return false
        }
    }

    /// Skips whitespace and empty list elements (RFC 9110 §5.6.1 lets a recipient ignore them).
    private static func skipSeparators(_ scanner: inout FieldValueScanner) {
        repeat { scanner.skipWhitespace() } while scanner.consume(",")
    }
}

// AuthenticationChallenge: the libFuzzer target for `WWW-Authenticate` parsing (RFC 9110 §11.6.1), the field
// DigestAuthMiddleware reads from any server's 401. Test tooling for the codec layer, built by
// Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// An input is one or more field values, one per LF (a server may send the field several times). Properties:
// - every scheme is a non-empty token; every parameter name a non-empty lowercase token; a token68 is made
//   of token68 characters and its padding;
// - writing the parsed challenges back in the canonical form (values quoted, quoted-pairs for `"` and `\`)
//   and parsing that gives the same challenges: nothing the parser returned depends on how it was spelled.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/AuthenticationChallenge
// fuzz-max-len: 2048

@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthenticationChallenge(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let lines = input.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let challenges = AuthenticationChallenge.parse(lines)
    for challenge in challenges {
        FuzzCheck.expect(ByteClasses.isToken(challenge.scheme), "scheme \(challenge.scheme.debugDescription)")
        for name in challenge.parameters.keys {
            FuzzCheck.expect(
                ByteClasses.isToken(name) && name == name.lowercased(), "parameter name \(name.debugDescription)")
        }
        if let token68 = challenge.token68 {
            let body = token68.unicodeScalars.reversed().drop { $0 == "=" }
            FuzzCheck.expect(
                !body.isEmpty && challenge.parameters.isEmpty
                    && body.allSatisfy { $0.isASCII && ("-._~+/".unicodeScalars.contains($0) || isAlphanumeric($0)) },
                "token68 \(token68.debugDescription)")
        }
    }
    let written = challenges.map(canonical).joined(separator: ", ")
    let again = AuthenticationChallenge.parse([written])
    FuzzCheck.expect(again == challenges, "\(written.debugDescription) parses to \(again), not \(challenges)")
    return 0
}

/// ASCII letters and digits.
private func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
}

/// `scheme token68` or `scheme name="value", ...`, the parameters in name order.
private func canonical(_ challenge: AuthenticationChallenge) -> String {
    if let token68 = challenge.token68 { return challenge.scheme + " " + token68 }
    let parameters = challenge.parameters.sorted { $0.key < $1.key }.map { name, value in
        var quoted = "\""
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        return name + "=" + quoted + "\""
    }
    return parameters.isEmpty ? challenge.scheme : challenge.scheme + " " + parameters.joined(separator: ", ")
}

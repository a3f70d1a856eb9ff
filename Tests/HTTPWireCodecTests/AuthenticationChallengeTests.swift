// AuthenticationChallengeTests: `WWW-Authenticate` values as RFC 9110 §11.6.1 writes them — several
// challenges in one line (the comma is both the challenge and the parameter separator), quoted strings
// holding commas and escaped quotes, token68, case-insensitive names, several field lines, and the
// leniency for what cannot be read.

import HTTPWireCodec
import Testing

@Suite struct AuthenticationChallengeTests {
    @Test("two challenges in one line: the comma before a scheme starts a new one")
    func twoInOneLine() {
        let challenges = AuthenticationChallenge.parse([
            #"Digest realm="api, v2", qop="auth, auth-int", nonce="n\"1", Basic realm="api""#
        ])
        #expect(challenges.map(\.scheme) == ["Digest", "Basic"])
        #expect(challenges[0].parameters == ["realm": "api, v2", "qop": "auth, auth-int", "nonce": #"n"1"#])
        #expect(challenges[1].parameters == ["realm": "api"])
    }

    @Test("token68, a bare scheme, unquoted values, names in any case, and several field lines")
    func forms() {
        let challenges = AuthenticationChallenge.parse([
            "Negotiate YIIC+/a==, Bearer", "DIGEST Realm=api ,  ALGORITHM = SHA-256 , nonce=abc, NewAuth",
        ])
        #expect(challenges.map(\.scheme) == ["Negotiate", "Bearer", "DIGEST", "NewAuth"])
        #expect(challenges[0].token68 == "YIIC+/a==" && challenges[0].parameters.isEmpty)
        #expect(challenges[1].token68 == nil && challenges[1].parameters.isEmpty)
        #expect(challenges[2].isScheme("digest"))
        #expect(challenges[2].parameters == ["realm": "api", "algorithm": "SHA-256", "nonce": "abc"])
        // Empty list elements are ignored (RFC 9110 §5.6.1).
        #expect(AuthenticationChallenge.parse([", ,Basic realm=\"x\",,"]).map(\.parameters) == [["realm": "x"]])
    }

    @Test("what cannot be read ends the parse, keeping the challenges before it")
    func lenient() {
        #expect(AuthenticationChallenge.parse([#"Basic realm="x", Digest nonce="unterminated"#]).count == 2)
        #expect(AuthenticationChallenge.parse([#"Basic realm="x" junk"#]).map(\.scheme) == ["Basic"])
        #expect(AuthenticationChallenge.parse(["=oops", ""]).isEmpty)
        // The first of a repeated parameter wins.
        #expect(AuthenticationChallenge.parse(["Digest nonce=a, nonce=b"]).first?.parameters["nonce"] == "a")
    }
}

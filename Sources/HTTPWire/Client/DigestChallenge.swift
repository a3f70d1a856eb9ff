// DigestChallenge: one `Digest` challenge a server sent (RFC 7616), and the `Authorization` value that
// answers it (client layer). Values and arithmetic only: the middleware that sends it is
// DigestAuthMiddleware.swift.
//
// The server sends a nonce; the client proves it knows the password without sending it (RFC 7616 §3.4.1):
//
//     A1       = username ":" realm ":" password                 (for the "-sess" algorithms,
//                                                                 H(A1) ":" nonce ":" cnonce, §3.4.2)
//     A2       = method ":" request-uri                          (qop=auth, §3.4.3)
//     response = H( H(A1) ":" nonce ":" nc ":" cnonce ":" qop ":" H(A2) )
//              = H( H(A1) ":" nonce ":" H(A2) )                   (no qop: RFC 2069's form, §3.4.1's "else")
//
// `nc` counts the requests made with one nonce (eight hex digits), so a server can refuse a replay; `cnonce`
// is the client's own random value. `qop=auth-int` (which also hashes the body) is not offered by HTTPWire:
// a challenge that allows only it is not answered, and the 401 is returned as it came.

import HTTPWireCodec
import HTTPWireTransport

/// A `Digest` challenge HTTPWire can answer: its realm, nonce, opaque value, algorithm and quality of
/// protection.
package struct DigestChallenge: Sendable, Hashable {
    package var realm: String
    package var nonce: String
    /// Returned unchanged in every answer (§3.3).
    package var opaque: String?
    /// The hash function.
    package var algorithm: MessageDigest
    /// `-sess`: H(A1) also covers the nonces (§3.4.2).
    package var isSession: Bool
    /// The name the challenge gave the algorithm (`SHA-256-sess`), sent back as it was named.
    package var algorithmName: String?
    /// True when the challenge offered `qop=auth`; false for RFC 2069's form (no qop at all).
    package var usesQualityOfProtection: Bool
    /// `stale=true`: the nonce expired but the credentials were right (§3.3); retry with the new nonce.
    package var isStale: Bool
    /// `userhash=true`: send H(username ":" realm) instead of the name (§3.4.4).
    package var hashesUserName: Bool

    /// The first challenge among `challenges` that names `Digest` with an algorithm HTTPWire has and a
    /// quality of protection it offers, in the server's order of preference (RFC 7616 §3.7: "the client
    /// SHOULD use the first one it supports").
    package static func first(in challenges: [AuthenticationChallenge]) -> DigestChallenge? {
        for challenge in challenges where challenge.isScheme("Digest") {
            if let digest = DigestChallenge(challenge) { return digest }
        }
        return nil
    }

    /// The challenge's parameters, or nil when it cannot be answered: no nonce, an unknown algorithm, or a
    /// `qop` list without `auth`.
    package init?(_ challenge: AuthenticationChallenge) {
        let parameters = challenge.parameters
        guard let nonce = parameters["nonce"] else { return nil }
        let name = parameters["algorithm"]
        var base = (name ?? "MD5").uppercased()
        isSession = base.hasSuffix("-SESS")
        if isSession { base.removeLast("-SESS".count) }
        switch base {
        case "MD5": algorithm = .md5
        case "SHA-256": algorithm = .sha256
        case "SHA-512-256": algorithm = .sha512_256
        default: return nil
        }
        if let qop = parameters["qop"] {
            // A comma-separated list inside the quotes (§3.3): "auth, auth-int".
            let offered = qop.split(separator: ",").map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            guard offered.contains("auth") else { return nil }
            usesQualityOfProtection = true
        } else {
            usesQualityOfProtection = false
        }
        self.realm = parameters["realm"] ?? ""
        self.nonce = nonce
        self.opaque = parameters["opaque"]
        self.algorithmName = name
        self.isStale = parameters["stale"]?.lowercased() == "true"
        self.hashesUserName = parameters["userhash"]?.lowercased() == "true"
    }

    /// The `Authorization` field value answering this challenge for `method` on `uri` (the request target
    /// as sent), as the `nonceCount`-th request with this nonce. Nil only if OpenSSL cannot hash.
    package func authorization(
        user: String, password: String, method: String, uri: String, nonceCount: Int, clientNonce: String
    ) -> String? {
        let algorithm = self.algorithm
        let hash: (String) -> String? = { algorithm.hex($0) }
        guard var ha1 = hash("\(user):\(realm):\(password)"), let ha2 = hash("\(method):\(uri)") else { return nil }
        if isSession {
            guard let sessionKey = hash("\(ha1):\(nonce):\(clientNonce)") else { return nil }
            ha1 = sessionKey
        }
        let count = String(nonceCount, radix: 16)
        let nc = String(repeating: "0", count: max(0, 8 - count.count)) + count
        let response =
            usesQualityOfProtection
            ? hash("\(ha1):\(nonce):\(nc):\(clientNonce):auth:\(ha2)") : hash("\(ha1):\(nonce):\(ha2)")
        guard let response else { return nil }

        var parts: [String] = []
        if hashesUserName {
            guard let hashed = hash("\(user):\(realm)") else { return nil }
            parts.append("username=\(Self.quoted(hashed))")
            parts.append("userhash=true")
        } else if user.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }) {
            parts.append("username=\(Self.quoted(user))")
        } else {
            // §3.4.4: a name outside ASCII goes in username*, encoded as RFC 8187 says.
            // Unreserved bytes stay raw: all of them are RFC 8187 attr-chars.
            parts.append("username*=UTF-8''" + PercentEncoding.encode(user, for: .component))
        }
        parts.append("realm=\(Self.quoted(realm))")
        parts.append("uri=\(Self.quoted(uri))")
        if let algorithmName { parts.append("algorithm=\(algorithmName)") }
        parts.append("nonce=\(Self.quoted(nonce))")
        if usesQualityOfProtection {
            parts.append("nc=\(nc)")
            parts.append("cnonce=\(Self.quoted(clientNonce))")
            parts.append("qop=auth")
        }
        parts.append("response=\(Self.quoted(response))")
        if let opaque { parts.append("opaque=\(Self.quoted(opaque))") }
        return "Digest " + parts.joined(separator: ", ")
    }

    /// A new client nonce: 16 random bytes as hex (§3.4: "an opaque quoted ASCII-only string").
    package static func makeClientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return MessageDigest.lowercaseHex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// `"text"` with `"` and `\` escaped as quoted-pairs (RFC 9110 §5.6.4).
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}

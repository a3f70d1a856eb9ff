// DigestAuthTests: HTTP Digest authentication (RFC 7616) — the answer computed for the RFC's own example
// (MD5 and SHA-256, §3.9.1), SHA-512-256 with userhash and a non-ASCII name, the -sess and no-qop forms;
// then DigestAuthMiddleware against httpbin, an independently written server: a 401 answered and the
// request sent once more, later requests answered at once from the stored nonce, a stale nonce renewed,
// and wrong credentials returned as the 401 they got after one retry; and a fixture route that tells the
// three refusals apart (stale nonce, one-time nonce, wrong answer).

import FixtureServer
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct DigestAuthTests {
    /// RFC 7616 §3.9.1's challenge (the same for MD5 and SHA-256 but for the algorithm).
    private static func rfcChallenge(algorithm: String) throws -> DigestChallenge {
        let field = """
            Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=\(algorithm), \
            nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", \
            opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
            """
        return try #require(DigestChallenge.first(in: AuthenticationChallenge.parse([field])))
    }

    @Test("RFC 7616 §3.9.1: the example's response for MD5 and for SHA-256")
    func rfcExample() throws {
        for (algorithm, response) in [
            ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
            ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ] {
            let value = try #require(
                try Self.rfcChallenge(algorithm: algorithm).authorization(
                    user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html", nonceCount: 1,
                    clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"))
            let sent = try #require(AuthenticationChallenge.parse([value]).first)
            #expect(sent.isScheme("Digest"))
            #expect(sent.parameters["response"] == response, "\(algorithm)")
            #expect(sent.parameters["username"] == "Mufasa" && sent.parameters["uri"] == "/dir/index.html")
            #expect(sent.parameters["nc"] == "00000001" && sent.parameters["qop"] == "auth")
            #expect(sent.parameters["opaque"] == "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
            #expect(sent.parameters["algorithm"] == algorithm)
        }
    }

    @Test("SHA-512-256 with userhash and a name outside ASCII; -sess; no qop; what is refused")
    func otherForms() throws {
        // RFC 7616 §3.9.2's inputs. Its printed hashes do not match a recomputation (erratum 4897), so the
        // expected values here were computed with Python's hashlib (sha512_256).
        let field = """
            Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, \
            nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", charset=UTF-8, userhash=true
            """
        let challenge = try #require(DigestChallenge.first(in: AuthenticationChallenge.parse([field])))
        let value = try #require(
            challenge.authorization(
                user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?", method: "GET", uri: "/doe.json",
                nonceCount: 1,
                clientNonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v"))
        let sent = try #require(AuthenticationChallenge.parse([value]).first)
        #expect(sent.parameters["username"] == "793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b")
        #expect(sent.parameters["userhash"] == "true")
        #expect(sent.parameters["response"] == "3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5")

        // Without userhash, a name outside ASCII goes as username* (RFC 8187).
        var plain = challenge
        plain.hashesUserName = false
        let named = try #require(
            plain.authorization(
                user: "J\u{E4}s\u{F8}n Doe", password: "p", method: "GET", uri: "/", nonceCount: 1, clientNonce: "c"))
        #expect(named.contains("username*=UTF-8''J%C3%A4s%C3%B8n%20Doe"))

        // MD5-sess: H(A1) = H(H(user:realm:password):nonce:cnonce) (§3.4.2); nc counts in hex.
        let session = try #require(
            DigestChallenge.first(
                in: AuthenticationChallenge.parse([#"Digest realm="r", nonce="n", qop=auth, algorithm=MD5-sess"#])))
        let sessionValue = try #require(
            session.authorization(user: "u", password: "p", method: "GET", uri: "/x", nonceCount: 26, clientNonce: "c"))
        let sessionAnswer = try #require(AuthenticationChallenge.parse([sessionValue]).first)
        let innerHA1 = try #require(MessageDigest.md5.hex("u:r:p"))
        let ha1 = try #require(MessageDigest.md5.hex(innerHA1 + ":n:c"))
        let ha2 = try #require(MessageDigest.md5.hex("GET:/x"))
        #expect(sessionAnswer.parameters["response"] == MessageDigest.md5.hex("\(ha1):n:0000001a:c:auth:\(ha2)"))
        #expect(sessionAnswer.parameters["nc"] == "0000001a" && sessionAnswer.parameters["algorithm"] == "MD5-sess")

        // No qop (RFC 2069): response = H(HA1:nonce:HA2), and no nc, cnonce or qop sent.
        let old = try #require(
            DigestChallenge.first(in: AuthenticationChallenge.parse([#"Digest realm="r", nonce="n""#])))
        let oldValue = try #require(
            old.authorization(user: "u", password: "p", method: "GET", uri: "/x", nonceCount: 1, clientNonce: "c"))
        let oldAnswer = try #require(AuthenticationChallenge.parse([oldValue]).first)
        let oldHA1 = try #require(MessageDigest.md5.hex("u:r:p"))
        #expect(oldAnswer.parameters["response"] == MessageDigest.md5.hex("\(oldHA1):n:\(ha2)"))
        #expect(oldAnswer.parameters["nc"] == nil && oldAnswer.parameters["qop"] == nil)

        // Unknown algorithms, auth-int alone and a missing nonce are not answered; the next challenge is.
        let refused = AuthenticationChallenge.parse([
            #"Digest nonce="a", algorithm=SHA-1, Digest nonce="b", qop="auth-int", Digest realm="r""#,
            #"Digest nonce="d", algorithm=SHA-256"#,
        ])
        #expect(DigestChallenge.first(in: refused)?.nonce == "d")
    }

    private static func client(user: String = "user", password: String = "passwd", cookies: Bool = false) -> HTTPClient
    {
        var configuration = ClientConfiguration()
        configuration.proxy = .none
        configuration.middleware = [DigestAuthMiddleware(user: user, password: password)]
        if cookies { configuration.cookieJar = CookieJar() }
        return HTTPClient(configuration: configuration)
    }

    @Test(
        "httpbin: a 401 is answered once, then the stored nonce answers at once; wrong credentials stay 401",
        .timeLimit(.scaledMinutes(2)))
    func httpbin() async throws {
        try await withHttpbin { base in
            for algorithm in ["MD5", "SHA-256"] {
                let client = Self.client()
                let url = base + "/digest-auth/auth/user/passwd/\(algorithm)"
                let first = try await client.get(url)
                #expect(first.status == .ok, "\(algorithm)")
                #expect(String(decoding: first.body, as: UTF8.self).contains("\"authenticated\": true"))
                #expect(first.metrics.retries == 1, "the 401, then the answer")
                let second = try await client.get(url)
                #expect(second.status == .ok && second.metrics.retries == 0, "answered from the stored nonce")
                await client.shutdown()
            }
            let wrong = Self.client(password: "nope")
            let refused = try await wrong.get(base + "/digest-auth/auth/user/passwd/MD5")
            #expect(refused.status == .unauthorized)
            #expect(refused.metrics.retries == 1, "one answer, then the 401 is returned")
            await wrong.shutdown()
        }
    }

    @Test(
        "httpbin: a nonce the server calls stale is renewed and the request answered again",
        .timeLimit(.scaledMinutes(2)))
    func staleNonce() async throws {
        try await withHttpbin { base in
            // stale_after=1: httpbin calls the nonce stale on the request after the first success (it keeps
            // that count in a cookie, hence the jar).
            let client = Self.client(cookies: true)
            let url = base + "/digest-auth/auth/user/passwd/MD5/1"
            #expect(try await client.get(url).status == .ok)
            let again = try await client.get(url)
            #expect(again.status == .ok)
            #expect(again.metrics.retries == 1, "stale=true answered with the new nonce")
            await client.shutdown()
        }
    }

    /// What the /digest route has issued: its current nonce is `nonce-<issued>`.
    private struct RouteState {
        var issued = 0
        /// Whether the route has already refused a right answer as stale (it does so once, when asked to).
        var refusedAsStale = false
    }

    /// A route at /digest that accepts an answer to its current nonce and refuses any other with a new
    /// nonce. With `refusesFirstAsStale`, it also refuses the first right answer once, with `stale=true`.
    private static func nonceRoute(refusesFirstAsStale: Bool, state: LockedState<RouteState>) -> FixtureCustomRoute {
        FixtureCustomRoute(matches: { $0.target == "/digest" }) { responder in
            let sentNonce = responder.head.fields["Authorization"].flatMap {
                AuthenticationChallenge.parse([$0]).first?.parameters["nonce"]
            }
            let (accepted, stale, next) = state.withLock { state -> (Bool, Bool, String) in
                let isCurrent = sentNonce == "nonce-\(state.issued)"
                if isCurrent && (!refusesFirstAsStale || state.refusedAsStale) { return (true, false, "") }
                if isCurrent { state.refusedAsStale = true }
                state.issued += 1
                return (false, isCurrent, "nonce-\(state.issued)")
            }
            if accepted {
                try await responder.respond(status: 200, fields: [:], body: Array("in".utf8))
                return
            }
            let challenge = #"Digest realm="r", qop="auth", nonce="\#(next)""# + (stale ? ", stale=true" : "")
            try await responder.respond(status: 401, fields: ["WWW-Authenticate": challenge], body: [])
        }
    }

    @Test("a stale nonce is renewed even after a first 401; a refused one-time nonce is retried once only")
    func refusals() async throws {
        try await withFixtureServer { server in
            // No credentials → 401 (nonce-1); the right answer → 401 stale=true (nonce-2); answer → 200. The
            // second retry is allowed by the stale flag alone: the request had answered a 401 already.
            server.addCustomRoute(Self.nonceRoute(refusesFirstAsStale: true, state: LockedState(RouteState())))
            let client = Self.client()
            let stale = try await client.get(server.baseURL + "digest")
            #expect(stale.status == .ok && stale.metrics.retries == 2)
            await client.shutdown()
        }
        try await withFixtureServer { server in
            let state = LockedState(RouteState())
            server.addCustomRoute(Self.nonceRoute(refusesFirstAsStale: false, state: state))
            let client = Self.client()
            #expect(try await client.get(server.baseURL + "digest").metrics.retries == 1)
            // The stored nonce is taken the next time: no retry.
            #expect(try await client.get(server.baseURL + "digest").metrics.retries == 0)
            // The server moves on (single-use nonces): the stored one is refused without stale=true, and the
            // request is answered once more with the nonce the refusal carried.
            state.withLock { $0.issued += 1 }
            let moved = try await client.get(server.baseURL + "digest")
            #expect(moved.status == .ok && moved.metrics.retries == 1)
            await client.shutdown()
        }
        try await withFixtureServer { server in
            // Wrong credentials look like this to the route: each answer is to a nonce it has just replaced.
            let state = LockedState(RouteState())
            server.addCustomRoute(
                FixtureCustomRoute(matches: { $0.target == "/digest" }) { responder in
                    let next = state.withLock { state -> Int in
                        state.issued += 1
                        return state.issued
                    }
                    try await responder.respond(
                        status: 401, fields: ["WWW-Authenticate": #"Digest realm="r", nonce="n\#(next)""#], body: [])
                })
            let client = Self.client()
            let refused = try await client.get(server.baseURL + "digest")
            #expect(refused.status == .unauthorized && refused.metrics.retries == 1, "one answer, not a loop")
            #expect(state.withLock { $0.issued } == 2)
            await client.shutdown()
        }
    }
}

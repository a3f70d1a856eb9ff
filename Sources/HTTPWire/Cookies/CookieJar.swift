// CookieJar: the cookie store of RFC 6265 §5.3 and the `Cookie` field of §5.4, shared by every request of a
// client (client layer). Thread-safe: one LockedState holds the cookies; no call does I/O except the
// Netscape cookie file's load and save (CookieJar+File.swift), which run on the BlockingWorker thread.
//
// Storing: each `Set-Cookie` value is parsed by the codec (`SetCookie`), then given meaning for the URL it
// came from — the expiry (Max-Age wins over Expires), host-only or domain cookie, the default path — and
// either refused (a `Domain` the host is not in, an IP address, a single label) or stored, replacing the
// cookie with the same name, domain and path but keeping its creation time. Sending: every unexpired
// cookie whose domain and path match the URL, `Secure` ones only over https, in one `Cookie` field, longer
// paths first, then older first. Limits (§6.1's minimums) bound what a server can make the jar hold.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Cookies received from servers and sent back to them (RFC 6265), for an ``HTTPClient`` to use through
/// ``ClientConfiguration/cookieJar``, and loaded from or saved to a Netscape cookie file as curl's `-b`
/// and `-c` read and write it.
///
/// ```swift
/// let jar = CookieJar()
/// var configuration = ClientConfiguration()
/// configuration.cookieJar = jar
/// let client = HTTPClient(configuration: configuration)
/// _ = try await client.get("https://shop.example.test/login")   // Set-Cookie: session=…
/// _ = try await client.get("https://shop.example.test/cart")    // Cookie: session=…
/// try await jar.save(toFile: "cookies.txt")                     // curl -b cookies.txt reads it
/// ```
///
/// There is no public-suffix list: `Domain=com` and `Domain=127.0.0.1` (from another address) are refused,
/// `Domain=co.uk` is not. `SameSite` is kept but not enforced (an HTTP client has no browsing context).
public final class CookieJar: Sendable {
    /// How much a jar holds. The defaults are RFC 6265 §6.1's minimums, which user agents "SHOULD" provide
    /// at least and which browsers use as their limits, so a server that stays within them is never cut.
    public struct Limits: Sendable, Hashable {
        /// The largest cookie: its `Set-Cookie` value, or name, value, domain and path together. Default 4096.
        public var maxBytesPerCookie = 4096
        /// The most cookies one domain (``HTTPCookie/domain``) keeps; past it the oldest goes. Default 50.
        public var maxCookiesPerDomain = 50
        /// The most cookies in the jar; past it expired ones go, then the oldest. Default 3000.
        public var maxCookies = 3000

        /// The defaults described on each property.
        public init() {}
    }

    /// A stored cookie and its place in the creation order (two cookies created in the same instant still
    /// have an order: §5.4 sorts on creation time).
    struct Entry {
        var cookie: HTTPCookie
        var sequence: UInt64
    }

    /// The cookies and the next sequence number, under the one lock.
    struct State {
        var entries: [HTTPCookie.Identity: Entry] = [:]
        var nextSequence: UInt64 = 0
    }

    /// The limits the jar was created with.
    public let limits: Limits
    let state = LockedState(State())

    /// An empty jar.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Every cookie that has not expired, oldest first.
    public var cookies: [HTTPCookie] {
        let now = Date()
        return state.withLock { state in
            state.entries.values.filter { !$0.cookie.isExpired(at: now) }.sorted { $0.sequence < $1.sequence }
                .map(\.cookie)
        }
    }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    // MARK: Storing (§5.3)

    /// Stores the cookie a `Set-Cookie` field value describes, received in the response to `url`, and
    /// returns it — or nil when it was refused: unparsable, over the size limit, or with a `Domain` that
    /// `url`'s host may not set. A cookie that expires at once (`Max-Age=0`, an `Expires` in the past)
    /// deletes the stored one with its name, domain and path, and is returned expired.
    @discardableResult
    public func store(setCookie value: String, from url: TargetURL) -> HTTPCookie? {
        store(setCookie: value, from: url, now: Date())
    }

    /// ``store(setCookie:from:)`` at the instant `now` (the tests' clock).
    @discardableResult
    func store(setCookie value: String, from url: TargetURL, now: Date) -> HTTPCookie? {
        guard let parsed = SetCookie(parsing: value, maxBytes: limits.maxBytesPerCookie) else { return nil }
        // §5.3 step 3: Max-Age wins over Expires; ≤ 0 means the earliest representable time.
        let expires: Date?
        if let maxAge = parsed.maxAge {
            let seconds = min(maxAge, Self.latestSeconds - Int64(now.timeIntervalSince1970))
            expires = maxAge <= 0 ? Date(timeIntervalSince1970: 0) : now.addingTimeInterval(Double(seconds))
        } else if let instant = parsed.expires {
            expires = Date(timeIntervalSince1970: Double(min(instant, Self.latestSeconds)))
        } else {
            expires = nil
        }
        // §5.3 steps 4–6: a Domain attribute the host may not set refuses the cookie entirely.
        let host = url.host
        var domain = host
        var isHostOnly = true
        if let attribute = parsed.domain {
            guard CookieRules.refusal(ofDomain: attribute, forHost: host) == nil else { return nil }
            let isBareHost = attribute == host && (CookieRules.isIPAddress(host) || !host.contains("."))
            domain = attribute
            isHostOnly = isBareHost
        }
        let cookie = HTTPCookie(
            name: parsed.name, value: parsed.value, domain: domain,
            path: parsed.path ?? CookieRules.defaultPath(ofTarget: url.pathAndQuery), expires: expires,
            isHostOnly: isHostOnly, isSecure: parsed.isSecure, isHTTPOnly: parsed.isHTTPOnly,
            sameSite: parsed.sameSite, created: now)
        return insert(cookie, now: now)
    }

    /// Adds `cookie` as if a server had set it: it replaces the one with the same name, domain and path
    /// (keeping that one's creation time). Returns false when it is over ``Limits/maxBytesPerCookie`` or
    /// has a character that cannot go in a `Cookie` field (`;`, CR, LF, NUL…), and so was not added.
    @discardableResult
    public func add(_ cookie: HTTPCookie) -> Bool {
        insert(cookie, now: Date()) != nil
    }

    /// 2^35 seconds is past the year 3000: the latest expiry kept (§5.2.2 "the latest representable date").
    static let latestSeconds: Int64 = 1 << 35

    /// §5.3 steps 11–12 and the limits: replace, insert (or delete, for an expired cookie), evict. Returns
    /// the cookie as stored (with the creation time of the one it replaced), or nil when it was refused.
    func insert(_ cookie: HTTPCookie, now: Date) -> HTTPCookie? {
        guard cookie.byteCount <= limits.maxBytesPerCookie, !cookie.name.isEmpty,
            Self.isSendable(cookie.name), !cookie.name.contains("="), Self.isSendable(cookie.value)
        else { return nil }
        return state.withLock { state in
            let identity = cookie.identity
            var stored = cookie
            // §5.3 step 11.3: a replacement keeps the old cookie's creation time (and so its place in the order).
            let old = state.entries.removeValue(forKey: identity)
            if let old { stored.created = old.cookie.created }
            guard !stored.isExpired(at: now) else { return stored }
            let sequence = old?.sequence ?? state.nextSequence
            if old == nil { state.nextSequence += 1 }
            state.entries[identity] = Entry(cookie: stored, sequence: sequence)
            evict(from: &state, domain: stored.domain, now: now)
            return stored
        }
    }

    /// §5.3 "the user agent MAY evict": expired cookies first, then the oldest of the domain past the
    /// per-domain limit, then the oldest overall past the total limit.
    private func evict(from state: inout State, domain: String, now: Date) {
        let sameDomain = state.entries.filter { $0.value.cookie.domain == domain }
        if sameDomain.count > limits.maxCookiesPerDomain {
            removeExpiredThenOldest(
                from: &state, candidates: sameDomain, keeping: limits.maxCookiesPerDomain, now: now)
        }
        if state.entries.count > limits.maxCookies {
            removeExpiredThenOldest(from: &state, candidates: state.entries, keeping: limits.maxCookies, now: now)
        }
    }

    private func removeExpiredThenOldest(
        from state: inout State, candidates: [HTTPCookie.Identity: Entry], keeping limit: Int, now: Date
    ) {
        let order = candidates.sorted { left, right in
            let (leftExpired, rightExpired) = (
                left.value.cookie.isExpired(at: now), right.value.cookie.isExpired(at: now)
            )
            if leftExpired != rightExpired { return leftExpired }
            return left.value.sequence < right.value.sequence
        }
        for (identity, _) in order.prefix(candidates.count - limit) { state.entries.removeValue(forKey: identity) }
    }

    /// A name or value a `Cookie` field can carry: no control characters and no `;` (which would start
    /// another cookie). RFC 6265 §4.1.1's cookie-octet is stricter; servers send spaces and commas anyway.
    static func isSendable(_ text: String) -> Bool {
        !text.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ";") }
    }

    // MARK: Sending (§5.4)

    /// The cookies a request to `url` gets, in the order of the `Cookie` field: domain and path match,
    /// `Secure` ones only for https, none expired; longer paths first, then the ones created earlier.
    public func cookies(for url: TargetURL) -> [HTTPCookie] {
        cookies(for: url, now: Date())
    }

    /// ``cookies(for:)`` at the instant `now`.
    func cookies(for url: TargetURL, now: Date) -> [HTTPCookie] {
        let host = url.host
        return state.withLock { state in
            // Expired cookies are dropped from the store as they are found (§5.3: "MUST evict").
            let expired = state.entries.filter { $0.value.cookie.isExpired(at: now) }.keys
            for identity in expired { state.entries.removeValue(forKey: identity) }
            let matching = state.entries.values.filter { entry in
                let cookie = entry.cookie
                let domainMatches =
                    cookie.isHostOnly
                    ? host == cookie.domain : CookieRules.domainMatches(host: host, domain: cookie.domain)
                return domainMatches
                    && CookieRules.pathMatches(requestTarget: url.pathAndQuery, cookiePath: cookie.path)
                    && (!cookie.isSecure || url.scheme == .https)
            }
            return matching.sorted { left, right in
                let (leftLength, rightLength) = (left.cookie.path.utf8.count, right.cookie.path.utf8.count)
                if leftLength != rightLength { return leftLength > rightLength }
                return left.sequence < right.sequence
            }.map(\.cookie)
        }
    }

    /// The value of the one `Cookie` field for a request to `url` (§5.4 step 4: `name=value` pairs joined
    /// by `; `), or nil when no cookie matches.
    public func cookieFieldValue(for url: TargetURL) -> String? {
        cookieFieldValue(for: url, now: Date())
    }

    /// ``cookieFieldValue(for:)`` at the instant `now`.
    func cookieFieldValue(for url: TargetURL, now: Date) -> String? {
        let matching = cookies(for: url, now: now)
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}

// CachedResponse: one response as `HTTPCache` keeps it, with the arithmetic of RFC 9111 §4.2 that says how
// long it stays fresh and how old it is now (client layer, cache). Values and pure functions: the clock is
// passed in as seconds since the epoch, so every rule can be tested at any instant.
//
// Freshness (§4.2): a stored response may be used without asking the server while
//     freshness_lifetime > current_age
// - freshness_lifetime (§4.2.1) is the first of: `max-age` (§5.2.2.1); `Expires` minus `Date` (§5.3); a
//   heuristic (§4.2.2) for a status that allows one, here 10% of the time since `Last-Modified`, at most a
//   day (the "typical" 10% of §4.2.2; the cap is ours, as browsers have one). An invalid `max-age` or
//   `Expires` means "already stale" (§4.2.1, §5.3). `s-maxage` is for shared caches and ignored here.
// - current_age (§4.2.3) corrects the server's `Age` for the time the response spent on the way, then adds
//   the time it has spent in this cache:
//     apparent_age          = max(0, response_time - date_value)
//     corrected_age_value   = age_value + (response_time - request_time)
//     corrected_initial_age = max(apparent_age, corrected_age_value)
//     current_age           = corrected_initial_age + (now - response_time)

import HTTPWireCodec

/// A stored response and what the cache needs to judge it.
struct CachedResponse: Sendable {
    /// Statuses "heuristically cacheable" (RFC 9110 §15.1): stored and given a heuristic lifetime without
    /// explicit freshness information.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The longest heuristic lifetime (§4.2.2 leaves the figure to the cache): a day.
    static let heuristicLimit: Int64 = 86_400

    var status: Status
    var reason: String
    var version: HTTPVersion
    /// The response fields, less the ones RFC 9111 §3.1 keeps out of a cache (see `CacheRules.storedFields`).
    var fields: HTTPFields
    var body: [UInt8]
    var url: TargetURL
    /// For each field the response's `Vary` names, the value the request carried (nil: it had none), so a
    /// later request is matched against it (§4.1).
    var selectingFields: [(name: String, value: String?)]
    /// When the request that got this response was sent, and when the response arrived (seconds since the
    /// epoch, this machine's clock): `request_time` and `response_time` of §4.2.3.
    var requestTime: Int64
    var responseTime: Int64
    /// When it was last used, on the cache's own counter, for least-recently-used eviction.
    var lastUse: UInt64 = 0

    /// The response's `Cache-Control` directives.
    var directives: CacheControl { CacheControl(fields) }

    /// The URL and the selecting fields: one string per stored variant (its file's name is a hash of it).
    var variantKey: String {
        var key = url.description
        // A field the request did not carry (nil) and an empty one ("") are different selections.
        for field in selectingFields { key += "\n" + field.name + (field.value.map { "=" + $0 } ?? "") }
        return key
    }

    /// The bytes this entry accounts for in ``HTTPCache/capacity``: the body, and the fields' text.
    var byteCount: Int {
        body.count + fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + 256
    }

    /// The `ETag` the server gave, used to validate (§4.3.1).
    var entityTag: String? { fields["ETag"] }
    /// The `Last-Modified` the server gave, used to validate when there is no `ETag` (§4.3.1).
    var lastModified: String? { fields["Last-Modified"] }

    /// `date_value`: the response's `Date`, or when it arrived when it has none or an invalid one (RFC 9110
    /// §6.6.1: a recipient adds the `Date` a server left out).
    var dateValue: Int64 {
        fields["Date"].flatMap { HTTPDate.secondsSinceEpoch(parsing: $0, now: responseTime) } ?? responseTime
    }

    /// How long the response is fresh after it was generated (§4.2.1), in seconds; 0 when it says nothing a
    /// private cache can use and allows no heuristic.
    var freshnessLifetime: Int64 {
        let directives = self.directives
        if let maxAge = directives.seconds("max-age") {
            guard case .value(let seconds) = maxAge else { return 0 }
            return seconds
        }
        let expiresValues = fields.values(for: "Expires")
        if let expires = expiresValues.first {
            // §4.2.1: two different `Expires` lines leave the lifetime unknown; §5.3: an invalid date
            // (`Expires: 0` is common) is a time in the past.
            guard Set(expiresValues).count == 1,
                let instant = HTTPDate.secondsSinceEpoch(parsing: expires.trimmingWhitespace(), now: responseTime)
            else { return 0 }
            return max(0, instant - dateValue)
        }
        guard Self.heuristicallyCacheable.contains(status.rawValue) || directives.contains("public"),
            let text = lastModified,
            let modified = HTTPDate.secondsSinceEpoch(parsing: text.trimmingWhitespace(), now: responseTime)
        else { return 0 }
        return min(max(0, dateValue - modified) / 10, Self.heuristicLimit)
    }

    /// `current_age` at `now` (§4.2.3). `Age` that is no number is ignored (§5.1).
    func currentAge(now: Int64) -> Int64 {
        let ageValue =
            fields["Age"].flatMap { value in
                CacheControl.deltaSeconds(String(value.split(separator: ",").first ?? "").trimmingWhitespace())
            } ?? 0
        let apparentAge = max(0, responseTime - dateValue)
        let correctedAgeValue = ageValue + max(0, responseTime - requestTime)
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        return correctedInitialAge + max(0, now - responseTime)
    }
}

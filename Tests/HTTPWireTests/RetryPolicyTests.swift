import Foundation
import HTTPWireCodec
import Testing

@testable import HTTPWire

@Suite struct RetryPolicyTests {
    /// 1994-11-06 08:49:37 GMT, the RFC's example date.
    static let rfcExample = Date(timeIntervalSince1970: 784_111_777)

    @Test("backoff doubles from the initial wait and stops at the cap")
    func backoff() {
        let policy = RetryPolicy(maxRetries: 10, initialBackoff: .milliseconds(500), maxBackoff: .seconds(5))
        let delays = (1...7).map { policy.backoff(forRetry: $0) }
        #expect(
            delays == [
                .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5), .seconds(5),
            ])
        #expect(RetryPolicy(initialBackoff: .zero).backoff(forRetry: 3) == .zero)
    }

    @Test("retries transient failures up to the limit")
    func retriesErrors() {
        let policy = RetryPolicy(maxRetries: 2, initialBackoff: .seconds(1))
        let now = Self.rfcExample
        let dropped = RetryPolicy.Outcome.error(.bodyTruncated(expected: 100, received: 40))
        #expect(
            policy.decision(afterAttempt: 1, outcome: dropped, method: .get, now: now) == .retry(after: .seconds(1)))
        #expect(
            policy.decision(afterAttempt: 2, outcome: dropped, method: .get, now: now) == .retry(after: .seconds(2)))
        #expect(policy.decision(afterAttempt: 3, outcome: dropped, method: .get, now: now) == .giveUp)
        #expect(RetryPolicy.none.decision(afterAttempt: 1, outcome: dropped, method: .get, now: now) == .giveUp)
    }

    @Test("never retries a non-idempotent request (RFC 9110 §9.2.2)")
    func nonIdempotent() {
        let outcome = RetryPolicy.Outcome.error(.receiveFailed(errno: 104))
        #expect(RetryPolicy().decision(afterAttempt: 1, outcome: outcome, method: .post, now: Date()) == .giveUp)
        #expect(RetryPolicy().decision(afterAttempt: 1, outcome: outcome, method: .put, now: Date()) != .giveUp)
    }

    @Test(
        "classifies errors",
        arguments: [
            (HTTPWireError.bodyTruncated(expected: nil, received: 3), true),
            (.receiveFailed(errno: 104), true),
            (.sendFailed(errno: 32), true),
            (.emptyReply, true),
            (.couldNotConnect(host: "h", port: 80, errno: 111), true),
            (.timedOut(.body), true),
            (.timedOut(.connect), true),
            (.timedOut(.total), false),
            (.invalidURL("x"), false),
            (.couldNotResolveHost("h"), false),
            (.malformedResponse(.bareCarriageReturn), false),
            (.httpStatus(404), false),
            (.localWriteFailed(path: "/x", errno: 28), false),
            (.tlsHandshakeFailed("x"), false),
            (.peerCertificateRejected("x"), false),
            (.tooManyRedirects(limit: 10), false),
        ])
    func classifies(error: HTTPWireError, retryable: Bool) {
        #expect(RetryPolicy.isRetryable(error) == retryable)
    }

    @Test("retries 5xx but not 4xx", arguments: [400, 401, 403, 404, 408, 416, 429, 501])
    func statusesNotRetried(status: Int) {
        #expect(
            RetryPolicy().decision(afterAttempt: 1, outcome: .status(status, [:]), method: .get, now: Date()) == .giveUp
        )
    }

    @Test("honours Retry-After on 503 as seconds or as a date")
    func retryAfter() {
        let policy = RetryPolicy(initialBackoff: .seconds(1))
        let now = Self.rfcExample
        func decide(_ fields: HTTPFields, status: Int = 503) -> RetryPolicy.Decision {
            policy.decision(afterAttempt: 1, outcome: .status(status, fields), method: .get, now: now)
        }
        #expect(decide([:]) == .retry(after: .seconds(1)))
        #expect(decide(["Retry-After": "120"]) == .retry(after: .seconds(120)))
        #expect(decide(["Retry-After": " 7 "]) == .retry(after: .seconds(7)))
        #expect(decide(["Retry-After": "Sun, 06 Nov 1994 08:50:07 GMT"]) == .retry(after: .seconds(30)))
        #expect(decide(["Retry-After": "Sun, 06 Nov 1994 08:00:00 GMT"]) == .retry(after: .zero))
        #expect(decide(["Retry-After": "soon"]) == .retry(after: .seconds(1)))
        #expect(decide(["Retry-After": "3600"]) == .giveUp)  // beyond maxRetryAfter
        #expect(decide(["Retry-After": "99999999999999999999999"]) == .giveUp)
        #expect(decide(["Retry-After": "10"], status: 502) == .retry(after: .seconds(10)))
        let tolerant = RetryPolicy(retryableStatuses: [429])
        #expect(
            tolerant.decision(afterAttempt: 1, outcome: .status(429, ["Retry-After": "2"]), method: .get, now: now)
                == .retry(after: .seconds(2)))
    }

    @Test("honours Retry-After dates in the obsolete RFC 850 and asctime forms (RFC 9110 §5.6.7)")
    func retryAfterObsoleteDates() {
        let policy = RetryPolicy(initialBackoff: .seconds(1))
        let now = Self.rfcExample
        func decide(_ value: String) -> RetryPolicy.Decision {
            policy.decision(afterAttempt: 1, outcome: .status(503, ["Retry-After": value]), method: .get, now: now)
        }
        #expect(decide("Sunday, 06-Nov-94 08:50:07 GMT") == .retry(after: .seconds(30)))
        #expect(decide("Sun Nov  6 08:51:37 1994") == .retry(after: .seconds(120)))
        #expect(decide(" Sun Nov  6 08:51:37 1994\t") == .retry(after: .seconds(120)))  // OWS trimmed
        #expect(decide("Sunday, 06-Nov-94 08:00:00 GMT") == .retry(after: .zero))  // in the past
        #expect(decide("Sun Nov  6 09:49:37 1994") == .giveUp)  // an hour: beyond maxRetryAfter
        #expect(RetryAfterValue.delay("Sun Nov  6 08:49:38 1994", now: now) == .seconds(1))
        // The two-digit year is placed relative to `now`: read in 1994, "94" is this year, not 2094.
        #expect(RetryAfterValue.delay("Sunday, 06-Nov-94 08:49:40 GMT", now: now) == .seconds(3))
    }

    @Test("parses IMF-fixdate strictly")
    func imfFixdate() throws {
        #expect(RetryAfterValue.parseIMFFixdate("Sun, 06 Nov 1994 08:49:37 GMT") == Self.rfcExample)
        #expect(RetryAfterValue.parseIMFFixdate("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(
            RetryAfterValue.parseIMFFixdate("Tue, 29 Feb 2000 12:00:00 GMT") == Date(timeIntervalSince1970: 951_825_600)
        )
        #expect(
            RetryAfterValue.parseIMFFixdate("Fri, 31 Dec 2049 23:59:59 GMT")
                == Date(timeIntervalSince1970: 2_524_607_999))
        for bad in [
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 1900 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT ", "",
        ] {
            #expect(RetryAfterValue.parseIMFFixdate(bad) == nil, "\(bad)")
        }
    }
}

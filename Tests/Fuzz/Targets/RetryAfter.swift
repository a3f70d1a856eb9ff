// RetryAfter: the libFuzzer target for the `Retry-After` field value (RFC 9110 §10.2.3).
// Test tooling for the downloads layer (HTTPWire/Transfers), built by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// RetryAfterValue.swift lives in the HTTPWire library; it needs only the codec and FoundationEssentials'
// Date, so this target builds a partial `HTTPWire` module from that one file (see ContentDisposition.swift
// here). `RetryAfterValue` is internal: `@testable import` reaches it.
//
// An input is a server's Retry-After value; the clock comes from the input's hash, read as any Double (NaN
// and the infinities included: the policy takes a Date, and must not trap on a nonsense one). The delay
// is nil or not negative; delay-seconds (digits only) is exactly that many seconds, saturating at
// Int64.max; an HTTP-date in the past means now, one in the future at most 10^9 seconds.
//
// fuzz-module: HTTPWireCodec
// fuzz-module: HTTPWire Sources/HTTPWire/Client/RetryAfterValue.swift
// fuzz-seeds: Fixtures/fuzz/RetryAfter
// fuzz-max-len: 128

@testable import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRetryAfter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = input.text
    let hash = input.hash
    // Half the inputs with a clock in 2026, where HTTP-dates are near; half with any Double at all.
    let seconds = hash & 1 == 0 ? 1_781_000_000 + Double(hash >> 40) : Double(bitPattern: hash)
    guard let delay = RetryAfterValue.delay(text, now: Date(timeIntervalSince1970: seconds)) else { return 0 }
    func message() -> String { "\(text.debugDescription) at \(seconds) gives \(delay)" }
    FuzzCheck.expect(delay >= .zero, message())
    let trimmed = text.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
    let digits = Array(trimmed.reversed())
    if let first = digits.first, first >= 0x30, first <= 0x39 {
        let value = Int64(String(decoding: digits, as: UTF8.self)) ?? Int64.max
        FuzzCheck.expect(delay == .seconds(value), message())
    } else {
        FuzzCheck.expect(delay <= .seconds(1_000_000_000), message())
    }
    return 0
}

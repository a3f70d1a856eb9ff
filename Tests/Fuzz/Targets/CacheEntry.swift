// CacheEntry: the libFuzzer target for a persistent HTTPCache's entry file (HTTPWire/Cache). Test tooling,
// built by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// CacheEntryFile.swift and CachedResponse.swift need only the codec, so this target builds a partial
// `HTTPWire` module from those two files. An input is the content of a `.response` file: written by an
// earlier process, cut short by a power loss, or changed by something else. Reading must never trap, and an
// accepted file must describe a response the cache can use and write again: a status 100–999, fields whose
// names are tokens, and encoding the response gives bytes that read back as the same response (here the
// bytes are exactly the input: the format has one spelling).
//
// fuzz-module: HTTPWireCodec
// fuzz-module: HTTPWire Sources/HTTPWire/Cache/CachedResponse.swift Sources/HTTPWire/Cache/CacheEntryFile.swift
// fuzz-seeds: Fixtures/fuzz/CacheEntry
// fuzz-max-len: 4096

@testable import HTTPWire
@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let response = CachedResponse.decodeFile(input.bytes) else { return 0 }
    func text() -> String { input.text.debugDescription }
    FuzzCheck.expect((100...999).contains(response.status.rawValue), "\(text()): status \(response.status)")
    for field in response.fields {
        FuzzCheck.expect(ByteClasses.isToken(field.name), "\(text()): field name \(field.name.debugDescription)")
    }
    FuzzCheck.expect(response.body.count <= input.bytes.count, "\(text()): a body longer than the file")
    let encoded = response.encodedFile()
    FuzzCheck.expect(
        encoded == input.bytes, "\(text()) encodes as \(String(decoding: encoded, as: UTF8.self).debugDescription)")
    // The freshness arithmetic must not trap on whatever dates and ages the fields hold.
    _ = response.freshnessLifetime
    _ = response.currentAge(now: response.responseTime &+ 1)
    return 0
}

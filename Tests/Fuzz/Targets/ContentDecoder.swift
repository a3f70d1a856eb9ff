// ContentDecoder: the libFuzzer target for gzip and deflate response bodies (RFC 9110 §8.4.1, RFC 1950-1952).
// Test tooling for the compression part of the client layer (HTTPWire/Compression), built by
// Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// The decoding layers need nothing but zlib, so this target builds a partial `HTTPWire` module from the
// Compression files below ContentDecoder (which also needs HTTPWireError and the response head), and the
// fixture server's Deflater as a partial `FixtureServer` module for the round trip.
//
// An input is one selector byte (bit 0: gzip or deflate; the rest seed a random split) and a body. For any
// body, whole, byte by byte and in random pieces must give the same decoded bytes and the same failure
// (the split is never allowed to matter), a failure is one of the typed ones, the limits hold, and nothing
// crashes. Then the body itself is compressed (gzip, zlib or raw deflate, by the selector) and must decode to
// exactly it.
//
// fuzz-include: Sources/CZlib
// fuzz-module: HTTPWireCodec
// fuzz-module: HTTPWire Sources/HTTPWire/Compression/Inflater.swift Sources/HTTPWire/Compression/InflateLayer.swift Sources/HTTPWire/Compression/ContentDecodingFailure.swift Sources/HTTPWire/Compression/ContentDecoding.swift
// fuzz-module: FixtureServer Sources/FixtureServer/Deflater.swift
// fuzz-seeds: Fixtures/fuzz/ContentDecoder
// fuzz-max-len: 4096

@testable import FixtureServer
@testable import HTTPWire

/// The round trip's compressors, one per format, reset for each input: a new deflater costs deflateInit2's
/// ~268 KB of state, and three per input were a fifth of the target's time. libFuzzer calls the entry point
/// from one thread only.
nonisolated(unsafe) private let roundTrips: [(Deflater, InflateLayer.Coding)] = [
    (Deflater(format: .gzip), .gzip), (Deflater(format: .zlib), .deflate), (Deflater(format: .raw), .deflate),
]

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let selector = input.bytes.first else { return 0 }
    let body = input.bytes.dropFirst()
    let coding: InflateLayer.Coding = selector & 1 == 0 ? .gzip : .deflate
    var limits = ContentDecoding.on
    limits.maxDecodedBytes = 1 << 20
    let whole = ContentDecoderFuzz.decode(body, coding, .whole, limits)
    for split in [Split.byteByByte, .random(seed: UInt64(selector >> 1) &+ 1, maxPiece: 64)] {
        let other = ContentDecoderFuzz.decode(body, coding, split, limits)
        FuzzCheck.expect(ContentDecoderFuzz.same(other, whole), "\(coding) \(split): \(other) but whole: \(whole)")
    }
    if case .success(let decoded) = whole {
        FuzzCheck.expect(decoded.count <= limits.maxDecodedBytes, "\(decoded.count) bytes past the limit")
    }
    // The round trip: the body compressed by zlib in one of the three formats (the selector's bits 1-7
    // choose, so every format meets every kind of body) decodes to exactly the body, in any split.
    let payload = Array(body)
    let (deflater, layer) = roundTrips[Int(selector >> 1) % roundTrips.count]
    let compressed = deflater.compress(payload)
    for split in [Split.whole, .random(seed: UInt64(selector) | 1, maxPiece: 17)] {
        let result = ContentDecoderFuzz.decode(compressed[...], layer, split, ContentDecoding.on)
        FuzzCheck.expect(ContentDecoderFuzz.same(result, .success(payload)), "\(layer) round trip \(split): \(result)")
    }
    return 0
}

/// The decoding behind the entry point.
enum ContentDecoderFuzz {
    /// `body` through one layer in `split`'s pieces, with `limits`: the output or the failure.
    static func decode(
        _ body: ArraySlice<UInt8>, _ coding: InflateLayer.Coding, _ split: Split, _ limits: ContentDecoding
    ) -> Result<[UInt8], Failure> {
        var layer = InflateLayer(coding)
        var output: [UInt8] = []
        var produced: Int64 = 0
        let received = Int64(body.count)
        do throws(ContentDecodingFailure.Stop) {
            for piece in Pieces(body, split) {
                try layer.decode(piece) { (decoded: ArraySlice<UInt8>) throws(ContentDecodingFailure.Stop) in
                    produced += Int64(decoded.count)
                    try limits.check(produced: produced, received: received)
                    output += decoded
                }
            }
            try layer.finish()
            return .success(output)
        } catch {
            return .failure(Failure(error.failure))
        }
    }

    /// Whether two outcomes are equal, written out so the bytes compare as `[UInt8]`: `Result`'s own `==`
    /// is generic in the standard library and compared element by element through witness tables, which
    /// took a sixth of the target's time for 4 KiB bodies.
    static func same(_ a: Result<[UInt8], Failure>, _ b: Result<[UInt8], Failure>) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): return x == y
        case (.failure(let x), .failure(let y)): return x == y
        default: return false
        }
    }

    /// A failure compared by kind: zlib's message can depend on where the bad byte fell.
    struct Failure: Error, Equatable {
        let kind: String
        init(_ failure: ContentDecodingFailure) {
            switch failure {
            case .corrupt: kind = "corrupt"
            default: kind = "\(failure)"
            }
        }
    }
}

import HTTPWireTransport
import Testing

@testable import HTTPWire

@Suite struct SHA256DigestTests {
    // FIPS 180-2 / NIST test vectors.
    static let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    static let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let millionA = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

    @Test("matches the standard vectors for \"abc\" and the empty string")
    func vectors() throws {
        #expect(try #require(SHA256Digest.of(Array("abc".utf8))).hexString == Self.abc)
        #expect(try #require(SHA256Digest.of([UInt8]())).hexString == Self.empty)
        #expect(try #require(SHA256Digest.of(Array("abd".utf8))).hexString != Self.abc)
    }

    @Test("a million 'a' fed in uneven chunks gives the standard digest")
    func streamed() throws {
        var hasher = SHA256Hasher()
        let block = [UInt8](repeating: UInt8(ascii: "a"), count: 65_537)
        var remaining = 1_000_000
        var size = 1
        while remaining > 0 {
            let count = min(size, remaining, block.count)
            hasher.update(block[..<count])
            remaining -= count
            size = size * 3 + 1
        }
        hasher.update([])
        let finalized = hasher.finalize().flatMap { SHA256Digest(bytes: $0) }  // consumes the non-copyable hasher
        let digest = try #require(finalized)
        #expect(digest.hexString == Self.millionA)
        #expect(digest.description == Self.millionA)
        #expect(digest.bytes.count == 32)
    }

    @Test("compares against user-given hex, ignoring case and surrounding spaces")
    func comparison() throws {
        let digest = try #require(SHA256Digest.of(Array("abc".utf8)))
        #expect(digest.matches(hex: Self.abc))
        #expect(digest.matches(hex: Self.abc.uppercased()))
        #expect(digest.matches(hex: "  \(Self.abc) "))
        #expect(!digest.matches(hex: Self.empty))
        #expect(!digest.matches(hex: String(Self.abc.dropLast())))
        #expect(!digest.matches(hex: String(Self.abc.dropLast()) + "g"))
        #expect(!digest.matches(hex: Self.abc + "00"))
        #expect(!digest.matches(hex: ""))
        #expect(SHA256Digest(hex: Self.abc) == digest)
        #expect(SHA256Digest(bytes: [1, 2, 3]) == nil)
    }
}

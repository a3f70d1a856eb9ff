// MessageDigest: a one-shot hash of a few bytes — MD5, SHA-256 or SHA-512/256 — as lowercase hex, with
// OpenSSL's EVP_Digest (transport layer: it is where OpenSSL is reached).
//
// HTTP Digest authentication (RFC 7616) hashes short strings — `user:realm:password`, `method:uri` — with
// the algorithm the server names, and sends the results as lowercase hex (§3.4.1). For a file's SHA-256,
// fed chunk by chunk, see `SHA256Hasher`. Nothing here touches a descriptor.

import COpenSSL

/// The hash functions RFC 7616 §6.1 registers for Digest authentication.
package enum MessageDigest: Sendable, Hashable, CaseIterable {
    /// MD5: the historical default (RFC 2617); broken for collisions, still what most servers offer.
    case md5
    /// SHA-256 (RFC 7616 §3.2's preferred algorithm).
    case sha256
    /// SHA-512/256: SHA-512 truncated to 256 bits with its own initial values (FIPS 180-4 §5.3.6).
    case sha512_256

    /// Lowercase hex of the hash of `bytes` (32 characters for MD5, 64 for the others), or nil if OpenSSL
    /// failed (out of memory, or MD5 disabled by a FIPS configuration).
    package func hex(_ bytes: [UInt8]) -> String? {
        let function: OpaquePointer?
        switch self {
        case .md5: function = EVP_md5()
        case .sha256: function = EVP_sha256()
        case .sha512_256: function = EVP_sha512_256()
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { target in
                EVP_Digest(input.baseAddress, input.count, target.baseAddress, &length, function, nil)
            }
        }
        guard status == 1 else { return nil }
        return Self.lowercaseHex(output[..<Int(length)])
    }

    /// `bytes` as lowercase hex, two digits a byte: how digests are written in HTTP fields (RFC 7616 §3.4.1)
    /// and in HTTPWire's checksums.
    package static func lowercaseHex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Lowercase hex of the hash of `text`'s UTF-8 bytes.
    package func hex(_ text: String) -> String? {
        hex(Array(text.utf8))
    }
}

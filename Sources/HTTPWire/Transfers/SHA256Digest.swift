// SHA256Digest: the SHA-256 of a download, checked against the checksum a user was given (downloads layer).
// A value: 32 bytes, read from and shown as hex. The digest itself is computed as the bytes stream past by
// the transport's `SHA256Hasher` (OpenSSL's EVP API); this file reads no files and touches no socket.

import HTTPWireCodec
import HTTPWireTransport

/// A SHA-256 digest: 32 bytes, shown as 64 lowercase hex digits.
///
/// ```swift
/// let expected = SHA256Digest(hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
/// var options = DownloadOptions()
/// options.expectedSHA256 = expected          // the download is checked before it is put in place
/// SHA256Digest.of(Array("test".utf8)) == expected           // true
/// ```
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 digest bytes.
    package let bytes: [UInt8]

    /// A digest from its 32 bytes; nil for any other count.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// A digest from 64 hex digits, upper or lower case (as `sha256sum` prints them, or as a web page
    /// shows them). Surrounding spaces are ignored; anything else returns nil.
    public init?(hex: String) {
        let digits = Array(hex.utf8.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed())
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = ByteClasses.hexValue(digits[index]), let low = ByteClasses.hexValue(digits[index + 1])
            else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// The digest as 64 lowercase hex digits.
    public var hexString: String { MessageDigest.lowercaseHex(bytes) }

    /// The hex string.
    public var description: String { hexString }

    /// True when `hex` spells this digest (case-insensitive). A malformed string never matches.
    public func matches(hex: String) -> Bool {
        SHA256Digest(hex: hex) == self
    }

    /// The digest of `bytes` in one call.
    public static func of(_ bytes: some Sequence<UInt8>) -> SHA256Digest? {
        var hasher = SHA256Hasher()
        hasher.update(Array(bytes))
        return hasher.finalize().flatMap { SHA256Digest(bytes: $0) }
    }
}

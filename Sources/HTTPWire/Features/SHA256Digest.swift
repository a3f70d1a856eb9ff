// SHA256Digest: the SHA-256 of a download, computed as the bytes stream past, and checked against the
// checksum a user was given.
// Features layer: OpenSSL's EVP digest API (libcrypto, already linked for TLS); no files, no sockets.
//
// A download can be gigabytes, so the digest is fed chunk by chunk (`Hasher.update`) as the body is
// written, never by re-reading the file. OpenSSL's EVP interface is the supported way to reach SHA-256 in
// OpenSSL 3 (the old SHA256_Init family is deprecated). The EVP context is a heap object that must be freed
// exactly once, so the hasher is a non-copyable value that frees it in `deinit`. This file must not read
// files; the client feeds it from the blocking worker as it writes.

import COpenSSL
import HTTPWireCodec

/// A SHA-256 digest: 32 bytes, shown as 64 lowercase hex digits.
///
/// ```swift
/// var hasher = SHA256Digest.Hasher()
/// hasher.update(chunk)                          // for each chunk of the body
/// let digest = hasher.finalize()
/// digest?.matches(hex: userGivenChecksum)       // case-insensitive comparison
/// ```
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// A digest from its 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
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
    public var hexString: String {
        let digits = Array("0123456789abcdef".unicodeScalars)
        var text = String.UnicodeScalarView()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(text)
    }

    /// The hex string.
    public var description: String { hexString }

    /// True when `hex` spells this digest (case-insensitive). A malformed string never matches.
    public func matches(hex: String) -> Bool {
        SHA256Digest(hex: hex) == self
    }

    /// The digest of `bytes` in one call.
    public static func of(_ bytes: some Sequence<UInt8>) -> SHA256Digest? {
        var hasher = Hasher()
        hasher.update(Array(bytes))
        return hasher.finalize()
    }

    /// Computes a SHA-256 incrementally with OpenSSL's EVP API (`EVP_DigestInit_ex` with `EVP_sha256`,
    /// `EVP_DigestUpdate` per chunk, `EVP_DigestFinal_ex` once).
    ///
    /// Non-copyable: it owns an `EVP_MD_CTX`, freed exactly once in `deinit`. It may be sent to another
    /// thread (the client's blocking worker) because a non-copyable value has a single owner, so two threads
    /// can never reach the context at once.
    ///
    /// OpenSSL can only fail here by running out of memory. Rather than trap, the hasher remembers a failure
    /// and `finalize()` returns nil, which a caller reports as "could not verify".
    public struct Hasher: ~Copyable, @unchecked Sendable {
        private let context: OpaquePointer?
        private var hasFailed: Bool

        /// A hasher ready for the first chunk.
        public init() {
            context = EVP_MD_CTX_new()
            hasFailed = context == nil || EVP_DigestInit_ex(context, EVP_sha256(), nil) != 1
        }

        deinit {
            EVP_MD_CTX_free(context)
        }

        /// Adds bytes to the digest.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard !hasFailed, bytes.count > 0 else { return }
            if EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) != 1 { hasFailed = true }
        }

        /// Adds bytes to the digest.
        public mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { update($0) }
        }

        /// Adds bytes to the digest (a slice of a receive buffer, for instance).
        public mutating func update(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBytes { update($0) }
        }

        /// The digest of everything added; nil if OpenSSL failed at any step. Consumes the hasher.
        public consuming func finalize() -> SHA256Digest? {
            guard !hasFailed else { return nil }
            var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            let status = output.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
            guard status == 1, length == 32 else { return nil }
            return SHA256Digest(bytes: Array(output[..<32]))
        }
    }
}

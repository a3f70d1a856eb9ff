// SHA256Hasher: SHA-256 computed incrementally with OpenSSL's EVP API (transport layer).
//
// libcrypto is already linked for TLS, and it is the one C library HTTPWire links, so its digest lives here
// beside the TLS code: the layers above see bytes in and 32 bytes out. A download can be gigabytes, so the
// digest is fed chunk by chunk as the body is written, never by re-reading the file. OpenSSL's EVP interface
// is the supported way to reach SHA-256 in OpenSSL 3 (the old SHA256_Init family is deprecated). This file
// reads no files and makes no system call.

import COpenSSL

/// Computes a SHA-256 incrementally (`EVP_DigestInit_ex` with `EVP_sha256`, `EVP_DigestUpdate` per chunk,
/// `EVP_DigestFinal_ex` once).
///
/// ```swift
/// var hasher = SHA256Hasher()
/// hasher.update(chunk)              // for each chunk of the body
/// let digest = hasher.finalize()    // 32 bytes, or nil if OpenSSL failed
/// ```
///
/// Non-copyable: it owns an `EVP_MD_CTX`, freed exactly once in `deinit`. It may be sent to another thread
/// (a blocking worker) because a non-copyable value has a single owner, so two threads can never reach the
/// context at once. OpenSSL can only fail here by running out of memory; rather than trap, the hasher
/// remembers the failure and `finalize()` returns nil, which a caller reports as "could not verify".
package struct SHA256Hasher: ~Copyable, @unchecked Sendable {
    private let context: OpaquePointer?
    private var hasFailed: Bool

    /// A hasher ready for the first chunk.
    package init() {
        context = EVP_MD_CTX_new()
        hasFailed = context == nil || EVP_DigestInit_ex(context, EVP_sha256(), nil) != 1
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds bytes to the digest.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !hasFailed, bytes.count > 0 else { return }
        if EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) != 1 { hasFailed = true }
    }

    /// Adds bytes to the digest.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds bytes to the digest (a slice of a receive buffer, for instance).
    package mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32 digest bytes of everything added; nil if OpenSSL failed at any step. Consumes the hasher.
    package consuming func finalize() -> [UInt8]? {
        guard !hasFailed else { return nil }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = output.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        guard status == 1, length == 32 else { return nil }
        return Array(output[..<32])
    }
}

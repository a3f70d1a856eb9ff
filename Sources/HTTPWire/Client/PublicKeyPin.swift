// PublicKeyPin: one pinned server key — the SHA-256 of its SubjectPublicKeyInfo — in curl's spelling
// (client layer).
//
// Certificate verification trusts every CA in the store; a pin narrows that to one key (or a few): the
// connection is refused unless the server's certificate carries a public key whose DER-encoded
// SubjectPublicKeyInfo hashes to a pinned value (the same bytes RFC 7469 §2.4 pins). curl spells a pin
// `sha256//` followed by the base64 of the 32-byte hash, and a list of them separated by `;`; this file
// parses and prints that form. The check itself happens in the transport, right after the handshake. Plain
// values: nothing here touches OpenSSL.
//
// To compute the pin of a server's key with the openssl tool:
//
//     openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der \
//         | openssl dgst -sha256 -binary | base64

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A pinned public key: the SHA-256 of a server's SubjectPublicKeyInfo.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.tls.pinnedPublicKeys = PublicKeyPin.list("sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=") ?? []
/// ```
///
/// A mismatch fails the request with ``HTTPWireError/pinnedPublicKeyMismatch(actual:)`` (exit 90), whose
/// `actual` is the server's own pin in this spelling.
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256 hash.
    public let sha256: [UInt8]

    /// A pin from the 32 bytes of a SHA-256 hash.
    public init(sha256: [UInt8]) {
        precondition(sha256.count == 32, "a SHA-256 pin has 32 bytes, not \(sha256.count)")
        self.sha256 = sha256
    }

    /// Parses one pin, `sha256//` and the base64 of 32 bytes (44 characters with padding), as curl's
    /// `--pinnedpubkey` takes it; nil for anything else (curl's other forms, a PEM or DER file name, are
    /// not supported).
    public init?(_ text: String) {
        let prefix = "sha256//"
        guard text.hasPrefix(prefix), let bytes = Data(base64Encoded: String(text.dropFirst(prefix.count))),
            bytes.count == 32
        else { return nil }
        self.init(sha256: Array(bytes))
    }

    /// Parses curl's list, pins separated by `;` (`sha256//A=;sha256//B=`); nil when any entry is not a pin
    /// or the list is empty.
    public static func list(_ text: String) -> [PublicKeyPin]? {
        let pins = text.split(separator: ";").map { PublicKeyPin(String($0)) }
        guard !pins.isEmpty, pins.allSatisfy({ $0 != nil }) else { return nil }
        return pins.compactMap { $0 }
    }

    /// `sha256//BASE64`, the spelling curl and ``init(_:)`` read.
    public var description: String { "sha256//" + Data(sha256).base64EncodedString() }
}

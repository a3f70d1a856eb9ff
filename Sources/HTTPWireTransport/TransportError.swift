// TransportError: how the transport reports a failure — the operation, and errno or OpenSSL's reason
// (transport layer).
//
// The transport knows descriptors, addresses, files and TLS, never HTTP, so its errors say what the kernel
// or OpenSSL said and which operation was being done, nothing more. It does not know why a wait had a
// deadline (a response head? a body?): `timedOut` only says the deadline passed, and the caller, which chose
// the deadline, names the phase. The layer above translates these cases into its own public error (HTTPWire
// does so in one place, `HTTPWireError+Transport.swift`), adding what it knows. errno values were captured
// once, by `Syscall`. This file makes no system call.

#if canImport(Glibc)
    import Glibc
#endif

/// A failure of a transport operation.
///
/// ```swift
/// do {
///     try await socket.write(bytes, deadline: .after(.seconds(5)))
/// } catch TransportError.sendFailed(let errno) {
///     print(TransportError.describe(errno))   // "broken pipe (errno 32)"
/// }
/// ```
/// Cancellation is Swift's `CancellationError`, and so is any operation on a descriptor that was closed
/// while it waited.
package enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The wait's deadline passed; the descriptor it waited on was closed.
    case timedOut
    /// DNS (getaddrinfo) gave no address for the host.
    case couldNotResolve(host: String)
    /// No address of the host accepted a connection; `errno` is the last attempt's.
    case couldNotConnect(host: String, port: Int, errno: Int32)
    /// Sending on a socket (send, sendfile, SSL_write) failed.
    case sendFailed(errno: Int32)
    /// Receiving from a socket (recv, splice from it, SSL_read) failed, or a TLS record was corrupt.
    case receiveFailed(errno: Int32)
    /// Reading a local file failed: the call, the path, errno.
    case fileReadFailed(call: String, path: String, errno: Int32)
    /// Writing a local file (or its directory entry) failed: the call, the path, errno.
    case fileWriteFailed(call: String, path: String, errno: Int32)
    /// TLS could not be set up or negotiated, for a reason other than the peer's certificate (a missing CA
    /// file, no shared protocol version, a handshake alert), in OpenSSL's words.
    case tlsFailed(String)
    /// Our own certificate or private key (mutual TLS's client identity, or a server's) could not be loaded,
    /// or the two do not match, in OpenSSL's words.
    case localCertificateFailed(String)
    /// The peer's certificate did not verify (unknown issuer, expired, wrong name), in OpenSSL's words.
    case peerCertificateRejected(String)
    /// The peer's public key (the SHA-256 of its SubjectPublicKeyInfo, given here) matches none of the keys
    /// pinned for the host. The connection was closed before any application byte was sent.
    case publicKeyPinMismatch(sha256: [UInt8])
    /// A SOCKS5 proxy broke RFC 1928 (a wrong version byte, an unknown address type, a close mid-reply), or
    /// the request cannot be said in it (a host name longer than 255 bytes).
    case socksHandshakeFailed(String)
    /// A SOCKS5 proxy accepted none of the offered authentication methods, or refused the user name and
    /// password (RFC 1929 status other than 0).
    case socksAuthenticationFailed(String)
    /// A SOCKS5 proxy answered the CONNECT with a failure code (RFC 1928 §6, `REP` 1–8 or another value).
    case socksConnectFailed(reply: UInt8)
    /// A SOCKS4 or SOCKS4a proxy refused the connection (its reply code's meaning is in the text), broke the
    /// protocol, or the destination cannot be said in SOCKS4 (an IPv6 address).
    case socks4Failed(String)

    /// One lowercase line naming the operation and the reason.
    package var description: String {
        switch self {
        case .timedOut: return "timed out"
        case .couldNotResolve(let host): return "could not resolve host \(host)"
        case .couldNotConnect(let host, let port, let errno):
            // Port 0 is no TCP port a URL can name: `host` is then a Unix-domain socket's path.
            let place = port == 0 ? host : "\(host) port \(port)"
            return "could not connect to \(place): \(Self.describe(errno))"
        case .sendFailed(let errno): return "send failed: \(Self.describe(errno))"
        case .receiveFailed(let errno): return "receive failed: \(Self.describe(errno))"
        case .fileReadFailed(let call, let path, let errno): return "\(call) \(path): \(Self.describe(errno))"
        case .fileWriteFailed(let call, let path, let errno): return "\(call) \(path): \(Self.describe(errno))"
        case .tlsFailed(let reason): return "tls failed: \(reason)"
        case .localCertificateFailed(let reason): return "local certificate: \(reason)"
        case .peerCertificateRejected(let reason): return "peer certificate rejected: \(reason)"
        case .publicKeyPinMismatch: return "the peer's public key matches no pinned key"
        case .socksHandshakeFailed(let reason): return "socks5 handshake failed: \(reason)"
        case .socksAuthenticationFailed(let reason): return "socks5 authentication failed: \(reason)"
        case .socksConnectFailed(let reply):
            return "socks5 proxy refused the connection: \(Self.describeSOCKSReply(reply))"
        case .socks4Failed(let reason): return "socks4 proxy: \(reason)"
        }
    }

    /// RFC 1928 §6's meaning of a reply code, with the code: `"connection refused (reply 5)"`.
    package static func describeSOCKSReply(_ reply: UInt8) -> String {
        let meaning: String
        switch reply {
        case 1: meaning = "general socks server failure"
        case 2: meaning = "connection not allowed by ruleset"
        case 3: meaning = "network unreachable"
        case 4: meaning = "host unreachable"
        case 5: meaning = "connection refused"
        case 6: meaning = "ttl expired"
        case 7: meaning = "command not supported"
        case 8: meaning = "address type not supported"
        default: meaning = "unassigned reply code"
        }
        return "\(meaning) (reply \(reply))"
    }

    /// The C library's text for an errno value, lowercased: `"connection refused (errno 111)"`.
    package static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text).lowercased() + " (errno \(code))"
    }
}

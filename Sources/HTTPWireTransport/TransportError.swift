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
    /// The peer's certificate did not verify (unknown issuer, expired, wrong name), in OpenSSL's words.
    case peerCertificateRejected(String)

    /// One lowercase line naming the operation and the reason.
    package var description: String {
        switch self {
        case .timedOut: return "timed out"
        case .couldNotResolve(let host): return "could not resolve host \(host)"
        case .couldNotConnect(let host, let port, let errno):
            return "could not connect to \(host) port \(port): \(Self.describe(errno))"
        case .sendFailed(let errno): return "send failed: \(Self.describe(errno))"
        case .receiveFailed(let errno): return "receive failed: \(Self.describe(errno))"
        case .fileReadFailed(let call, let path, let errno): return "\(call) \(path): \(Self.describe(errno))"
        case .fileWriteFailed(let call, let path, let errno): return "\(call) \(path): \(Self.describe(errno))"
        case .tlsFailed(let reason): return "tls failed: \(reason)"
        case .peerCertificateRejected(let reason): return "peer certificate rejected: \(reason)"
        }
    }

    /// The C library's text for an errno value, lowercased: `"connection refused (errno 111)"`.
    package static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text).lowercased() + " (errno \(code))"
    }
}

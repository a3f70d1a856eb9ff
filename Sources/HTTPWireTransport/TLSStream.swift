// TLSStream: TLS over a connected TCP socket, driven by the reactor (transport layer).
//
// OpenSSL runs in non-blocking mode: every SSL call (handshake, read, write, shutdown) happens on the
// reactor thread inside a `ReactorOperation`, and when OpenSSL answers SSL_ERROR_WANT_READ or
// SSL_ERROR_WANT_WRITE the operation waits for that readiness of the socket and calls again. Note that a
// read can want to write (a TLS 1.3 key update) and a write can want to read; the interest is whatever
// OpenSSL asked for. Running every call on one thread also means an `SSL *` is never used concurrently.
//
// A failed handshake is sorted into two errors the CLI tells apart: the peer's certificate was rejected
// (`TransportError.peerCertificateRejected`, curl's exit 60, with OpenSSL's verification reason:
// "certificate has expired", "self-signed certificate", "unable to get local issuer certificate", "hostname
// mismatch") or anything else went wrong (`tlsFailed`, curl's exit 35: protocol version, an alert, the peer
// closing). This file knows nothing of HTTP.
//
// Public-key pinning is checked here too, on the reactor thread right after a client handshake succeeded
// (that is, after OpenSSL's own verification, or instead of it when verification is off): the SHA-256 of the
// server certificate's SubjectPublicKeyInfo, DER-encoded, must be one of the host's pins, as curl's
// `--pinnedpubkey sha256//...` checks it. A key pinned this way survives certificate renewals that keep the
// key, and a certificate from any CA, however trusted, with another key is refused
// (`TransportError.publicKeyPinMismatch`, curl's exit 90) before a byte of the request is sent.

import COpenSSL

/// The `SSL *` of one connection. Used on the reactor thread only; freed when the last reference goes,
/// which is after the stream and every operation that captured it are gone.
private final class SSLConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Whether the handshake finished, so that close_notify makes sense. Reactor thread only.
    var isEstablished = false
    /// Whether close_notify was sent (or the stream closed). Reactor thread only.
    var isShutDown = false
    /// A read failure that came after bytes which were delivered first; thrown by the next read.
    var pendingReadFailure: TransportError?

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_free(pointer) }

    /// Runs one SSL call that returns 1 on success; on failure returns SSL_get_error's code.
    func call(_ body: (OpaquePointer) -> Int32) -> Int32? {
        ERR_clear_error()  // SSL_get_error looks at the thread's error queue: start it empty
        let result = body(pointer)
        return result == 1 ? nil : SSL_get_error(pointer, result)
    }
}

/// A TLS connection (client or server side) over a `TCPSocket`.
///
/// ```swift
/// let context = try TLSContext(client: TLSClientSettings())
/// let socket = try await TCPSocket.connect(host: "example.test", port: 443, deadline: connectDeadline)
/// let stream = try await TLSStream.connect(over: socket, serverName: "example.test", context: context,
///                                          deadline: connectDeadline)
/// ```
package final class TLSStream: ByteStream, CustomStringConvertible {
    /// The TCP socket underneath; closed together with the stream.
    package let socket: TCPSocket
    private let connection: SSLConnection
    /// The ALPN protocol the peer chose ("http/1.1"), or nil when it chose none.
    package let negotiatedProtocol: String?
    /// The cipher suite the handshake settled on, in OpenSSL's naming ("TLS_AES_128_GCM_SHA256").
    package var negotiatedCipherSuite: String? {
        SSL_get_current_cipher(connection.pointer).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) }
    }

    private init(socket: TCPSocket, connection: SSLConnection, negotiatedProtocol: String?) {
        self.socket = socket
        self.connection = connection
        self.negotiatedProtocol = negotiatedProtocol
    }

    deinit {
        if socket.descriptor.isOpen { Reactor.shared.closeEventually(socket.descriptor) }
    }

    /// Runs the client handshake with `serverName` (a DNS name or an IP literal without brackets): SNI and
    /// a name check for a DNS name, an IP-address SAN check for a literal. On failure the socket is closed.
    /// Throws `TransportError.peerCertificateRejected`, `tlsFailed`, `timedOut`, `CancellationError`.
    package static func connect(over socket: TCPSocket, serverName: String, context: TLSContext, deadline: Deadline)
        async throws -> TLSStream
    {
        precondition(context.isClient, "TLSStream.connect needs a client context")
        let connection = try makeConnection(socket: socket, context: context)
        if Resolver.literalAddress(host: serverName, port: 0) != nil {
            // RFC 6066 §3: SNI carries host names only. RFC 6125: an address is matched against IP SANs.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(connection.pointer), serverName) == 1 else {
                await socket.close()
                throw TransportError.tlsFailed("cannot check ip address \(serverName)")
            }
        } else {
            guard httpwire_SSL_set_tlsext_host_name(connection.pointer, serverName) == 1,
                SSL_set1_host(connection.pointer, serverName) == 1
            else {
                await socket.close()
                throw TransportError.tlsFailed("cannot use server name \(serverName)")
            }
        }
        SSL_set_connect_state(connection.pointer)
        return try await handshake(
            socket: socket, connection: connection, pins: context.pinnedPublicKeys(forHost: serverName),
            deadline: deadline)
    }

    /// Runs the server handshake on an accepted socket; on failure the socket is closed.
    package static func accept(over socket: TCPSocket, context: TLSContext, deadline: Deadline) async throws
        -> TLSStream
    {
        precondition(!context.isClient, "TLSStream.accept needs a server context")
        let connection = try makeConnection(socket: socket, context: context)
        SSL_set_accept_state(connection.pointer)
        return try await handshake(socket: socket, connection: connection, pins: [], deadline: deadline)
    }

    private static func makeConnection(socket: TCPSocket, context: TLSContext) throws -> SSLConnection {
        guard let pointer = SSL_new(context.pointer) else {
            throw TransportError.tlsFailed(TLSContext.openSSLReason(default: "cannot create a tls session"))
        }
        let connection = SSLConnection(pointer)
        // SSL_set_fd wraps the descriptor in a socket BIO that does not close it: the reactor does.
        guard SSL_set_fd(pointer, socket.descriptor.rawValue) == 1 else {
            throw TransportError.tlsFailed(TLSContext.openSSLReason(default: "cannot attach the socket"))
        }
        return connection
    }

    /// Runs the handshake; with `pins`, the peer's key must then match one of them.
    private static func handshake(
        socket: TCPSocket, connection: SSLConnection, pins: [[UInt8]], deadline: Deadline
    ) async throws -> TLSStream {
        do {
            let _: Void = try await Reactor.shared.perform(on: socket.descriptor, deadline: deadline) {
                guard let failure = connection.call({ SSL_do_handshake($0) }) else {
                    connection.isEstablished = true
                    if !pins.isEmpty {
                        let actual = try peerPublicKeyHash(connection.pointer)
                        guard pins.contains(actual) else { throw TransportError.publicKeyPinMismatch(sha256: actual) }
                    }
                    return .finished(())
                }
                switch failure {
                case SSL_ERROR_WANT_READ: return .wait(.readable)
                case SSL_ERROR_WANT_WRITE: return .wait(.writable)
                default: throw handshakeError(failure, connection: connection.pointer)
                }
            }
        } catch {
            await socket.close()
            throw error
        }
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(connection.pointer, &name, &length)
        let chosen = name.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self) }
        return TLSStream(socket: socket, connection: connection, negotiatedProtocol: chosen)
    }

    /// The SHA-256 of the peer certificate's SubjectPublicKeyInfo in DER (RFC 5280 §4.1.2.7; RFC 7469 §2.4
    /// pins the same bytes): the key and its algorithm, not the certificate, so a renewal that keeps the key
    /// keeps the pin.
    package static func peerPublicKeyHash(_ connection: OpaquePointer) throws(TransportError) -> [UInt8] {
        guard let certificate = SSL_get1_peer_certificate(connection) else {
            throw .tlsFailed("the server sent no certificate to check against the pinned keys")
        }
        defer { X509_free(certificate) }
        guard let publicKey = X509_get_X509_PUBKEY(certificate) else {
            throw .tlsFailed("the server's certificate has no public key")
        }
        // i2d_* with a null output pointer returns the length; with a pointer it writes there and advances it.
        let length = i2d_X509_PUBKEY(publicKey, nil)
        guard length > 0 else { throw .tlsFailed(TLSContext.openSSLReason(default: "cannot encode the public key")) }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509_PUBKEY(publicKey, &cursor)
        }
        guard written == length else { throw .tlsFailed("cannot encode the public key") }
        var hasher = SHA256Hasher()
        hasher.update(der)
        guard let digest = hasher.finalize() else { throw .tlsFailed("cannot hash the public key") }
        return digest
    }

    /// Sorts a failed handshake into a rejected certificate or another failure (see the file comment).
    private static func handshakeError(_ failure: Int32, connection: OpaquePointer) -> TransportError {
        let verification = SSL_get_verify_result(connection)
        if verification != X509_V_OK {
            let reason = X509_verify_cert_error_string(verification).map { String(cString: $0) } ?? "unknown reason"
            ERR_clear_error()
            return .peerCertificateRejected(reason.lowercased())
        }
        switch failure {
        case SSL_ERROR_ZERO_RETURN:
            return .tlsFailed("the peer closed the connection during the handshake")
        case SSL_ERROR_SYSCALL:
            let code = Syscall.errnoAfterLibraryCall()
            if ERR_peek_error() == 0 && code == 0 {
                return .tlsFailed("the peer closed the connection during the handshake")
            }
            if ERR_peek_error() == 0 { return .tlsFailed(TransportError.describe(code)) }
            return .tlsFailed(TLSContext.openSSLReason(default: "system error"))
        default:
            // SSL_ERROR_SSL: a protocol failure; OpenSSL's reason says which ("unsupported protocol",
            // "tlsv1 alert protocol version", "wrong version number" from a plain-HTTP server...).
            let code = ERR_peek_last_error()
            defer { ERR_clear_error() }
            guard code != 0, let reason = ERR_reason_error_string(code) else {
                return .tlsFailed("handshake error \(failure)")
            }
            return .tlsFailed(String(cString: reason).lowercased())
        }
    }

    package var isOpen: Bool { socket.isOpen }

    package func read(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline) async throws -> Int {
        let receiveBuffer = ReceiveBuffer(taking: &buffer)
        defer { buffer = receiveBuffer.takeBytes() }
        let connection = self.connection
        return try await Reactor.shared.perform(on: socket.descriptor, deadline: deadline) {
            var interest = Interest.readable
            let count = try receiveBuffer.append(upTo: maxBytes) { address, capacity in
                try Self.decrypt(into: address, capacity: capacity, connection: connection, interest: &interest)
            }
            guard let count else { return .wait(interest) }
            return .finished(count)
        }
    }

    /// Decrypts up to `capacity` bytes into `address`, on the reactor thread. SSL_read_ex returns at most one
    /// record (16 KiB); decrypting record after record within one attempt fills a large buffer with one
    /// reactor round trip instead of one per record. Returns nil when nothing could be read yet, with
    /// `interest` set to the readiness OpenSSL waits for; 0 at the end of the stream.
    private static func decrypt(
        into address: UnsafeMutableRawPointer, capacity: Int, connection: SSLConnection, interest: inout Interest
    ) throws -> Int? {
        if let failure = connection.pendingReadFailure {
            connection.pendingReadFailure = nil
            throw failure
        }
        var total = 0
        while total < capacity {
            var count = 0
            let failure = connection.call { SSL_read_ex($0, address + total, capacity - total, &count) }
            guard let failure else {
                total += count
                continue
            }
            switch readOutcome(failure) {
            case .wait(let wanted):
                if total > 0 { return total }
                interest = wanted
                return nil
            case .endOfStream:
                return total  // 0 when nothing came first; a later read sees the end again
            case .failed(let error):
                guard total > 0 else { throw error }
                connection.pendingReadFailure = error  // deliver the bytes now, the error next time
                return total
            }
        }
        return total
    }

    /// What a failed SSL_read_ex means.
    private enum ReadOutcome {
        case wait(Interest)
        case endOfStream
        case failed(TransportError)
    }

    private static func readOutcome(_ failure: Int32) -> ReadOutcome {
        switch failure {
        case SSL_ERROR_WANT_READ: return .wait(.readable)
        case SSL_ERROR_WANT_WRITE: return .wait(.writable)
        case SSL_ERROR_ZERO_RETURN: return .endOfStream  // close_notify (or EOF, see TLSContext)
        case SSL_ERROR_SYSCALL:
            let code = Syscall.errnoAfterLibraryCall()
            return code == 0 ? .endOfStream : .failed(.receiveFailed(errno: code))
        default:
            ERR_clear_error()
            return .failed(.receiveFailed(errno: EPROTO))  // a corrupt or forged record
        }
    }

    package func write(_ bytes: ArraySlice<UInt8>, deadline: Deadline) async throws {
        guard !bytes.isEmpty else { return }
        let connection = self.connection
        var offset = bytes.startIndex
        let _: Void = try await Reactor.shared.perform(on: socket.descriptor, deadline: deadline) {
            while offset < bytes.endIndex {
                var written = 0
                let failure = bytes[offset...].withUnsafeBytes { unsent in
                    connection.call { SSL_write_ex($0, unsent.baseAddress, unsent.count, &written) }
                }
                switch failure {
                case nil: offset += written
                case SSL_ERROR_WANT_WRITE: return .wait(.writable)
                case SSL_ERROR_WANT_READ: return .wait(.readable)
                case SSL_ERROR_SYSCALL:
                    let code = Syscall.errnoAfterLibraryCall()
                    throw TransportError.sendFailed(errno: code == 0 ? EPIPE : code)
                default:
                    ERR_clear_error()
                    throw TransportError.sendFailed(errno: EPROTO)
                }
            }
            return .finished(())
        }
    }

    /// Sends close_notify (RFC 8446 §6.1) when the socket can take it at once, then closes the socket.
    /// The peer's close_notify is not awaited: HTTP/1.1 has finished with the connection by then.
    package func close() async {
        let connection = self.connection
        let descriptor = socket.descriptor
        await Reactor.shared.close(descriptor) {
            guard descriptor.isOpen, connection.isEstablished, !connection.isShutDown else { return }
            connection.isShutDown = true
            _ = connection.call { SSL_shutdown($0) }
            ERR_clear_error()
        }
    }

    /// `"tls 127.0.0.1:8443 (fd 7)"`.
    package var description: String { "tls \(socket.remoteAddress) (\(socket.descriptor))" }
}

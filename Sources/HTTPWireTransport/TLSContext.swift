// TLSContext: an OpenSSL SSL_CTX built from a TLS configuration (transport layer).
//
// A context holds what every connection of one client (or server) shares: protocol limits, the trust
// store, the certificate to present, ALPN. It is built once and then only read, which OpenSSL allows from
// any thread; each connection gets its own `SSL` from it (`TLSStream`). Loading problems (a missing CA
// file, a key that does not match its certificate) are reported as `TransportError.tlsFailed` with
// OpenSSL's reason, before any connection is attempted. This file makes no socket calls.

import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A configured OpenSSL context, for clients or for servers.
///
/// ```swift
/// var settings = TLSClientSettings()
/// settings.additionalTrustRoots = [.file(path: "ca.pem")]
/// let context = try TLSContext(client: settings)
/// let stream = try await TLSStream.connect(over: socket, serverName: "localhost", context: context, deadline: d)
/// ```
package final class TLSContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is fully configured in init and only read afterwards (SSL_new), which
    // OpenSSL documents as safe from several threads.

    /// The `SSL_CTX *`.
    let pointer: OpaquePointer
    /// Whether connections made from this context are the client side.
    package let isClient: Bool
    /// The client's public-key pins (see `TLSClientSettings.pinnedPublicKeys`); empty for a server.
    private let pinnedPublicKeys: [[UInt8]]
    /// Per-host pins, keyed by lowercased host.
    private let pinnedPublicKeysByHost: [String: [[UInt8]]]

    /// The TLS 1.3 cipher suites a client offers, most preferred first (see `init(client:)`).
    static let tls13SuitesInPreferenceOrder =
        "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

    /// ALPN protocol list in wire format (RFC 7301 §3.1): length-prefixed names.
    private static let alpnHTTP11: [UInt8] = [8] + Array("http/1.1".utf8)

    /// A client context: TLS 1.2+, verification per `configuration`, ALPN http/1.1.
    package init(client configuration: TLSClientSettings) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError.tlsFailed(Self.openSSLReason(default: "cannot create a TLS context"))
        }
        pointer = context
        isClient = true
        pinnedPublicKeys = configuration.pinnedPublicKeys
        var byHost: [String: [[UInt8]]] = [:]
        for (host, pins) in configuration.pinnedPublicKeysByHost { byHost[host.lowercased(), default: []] += pins }
        pinnedPublicKeysByHost = byHost
        try applyCommonSettings()
        // TLS 1.3 suites in the order browsers offer them: AES-128-GCM first — the one suite every TLS 1.3
        // implementation must support (RFC 8446 §9.1) — then AES-256-GCM, then ChaCha20-Poly1305 for CPUs
        // without AES instructions. A server picks from the client's order unless configured otherwise
        // (nginx's ssl_prefer_server_ciphers is off by default), and AES-128's 10 rounds cost the side that
        // encrypts a download less than AES-256's 14, with no practical loss of security. OpenSSL's own
        // default, which curl keeps, puts AES-256 first. TLS 1.2 keeps OpenSSL's list.
        guard SSL_CTX_set_ciphersuites(context, Self.tls13SuitesInPreferenceOrder) == 1 else {
            throw TransportError.tlsFailed(Self.openSSLReason(default: "cannot set tls 1.3 cipher suites"))
        }
        SSL_CTX_set_verify(context, configuration.verifiesPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        if configuration.trustsSystemRoots { try loadSystemTrustRoots() }
        for source in configuration.additionalTrustRoots { try addTrustRoots(source) }
        if let identity = configuration.identity {
            try useIdentity(chain: identity.chain, key: identity.key)
        }
        // SSL_CTX_set_alpn_protos returns 0 on success, unlike most of OpenSSL.
        let alpnStatus = Self.alpnHTTP11.withUnsafeBufferPointer { wire in
            SSL_CTX_set_alpn_protos(context, wire.baseAddress, UInt32(wire.count))
        }
        if alpnStatus != 0 { throw TransportError.tlsFailed("cannot configure alpn") }
    }

    /// Trusts the system's CA store the way `SSL_CTX_set_default_verify_paths` would, minus its costly part.
    /// In OpenSSL 3 that call also adds an OSSL_STORE lookup of the certificate directory, which decodes
    /// every file there up front (about 280 on Debian): measured here, a client's first HTTPS request took
    /// 110–230 ms and ~4 MiB more peak RSS than curl's. The hashed-directory lookup used instead reads a
    /// CA's file only when a chain names it (Debian's `update-ca-certificates` keeps the hash links); the
    /// single-file bundle is loaded, all at once, only when that directory does not exist. SSL_CERT_DIR and
    /// SSL_CERT_FILE are honoured as OpenSSL's default paths honour them.
    private func loadSystemTrustRoots() throws(TransportError) {
        let directory = Self.defaultPath(environment: X509_get_default_cert_dir_env(), X509_get_default_cert_dir())
        var isLoaded = false
        if let directory, access(directory, R_OK | X_OK) == 0 {
            isLoaded = SSL_CTX_load_verify_dir(pointer, directory) == 1
        }
        if !isLoaded,
            let file = Self.defaultPath(environment: X509_get_default_cert_file_env(), X509_get_default_cert_file())
        {
            isLoaded = SSL_CTX_load_verify_file(pointer, file) == 1
        }
        guard isLoaded else {
            throw TransportError.tlsFailed(Self.openSSLReason(default: "cannot load the system CA store"))
        }
    }

    /// The value of the environment variable `environment` names, else `fallback` (OpenSSL's built-in path).
    private static func defaultPath(
        environment: UnsafePointer<CChar>?, _ fallback: UnsafePointer<CChar>?
    ) -> String? {
        if let environment, let value = getenv(environment) { return String(cString: value) }
        return fallback.map { String(cString: $0) }
    }

    /// A server context presenting `configuration.certificateChain`, choosing ALPN http/1.1.
    package init(server configuration: TLSServerSettings) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TransportError.tlsFailed(Self.openSSLReason(default: "cannot create a TLS context"))
        }
        pointer = context
        isClient = false
        pinnedPublicKeys = []
        pinnedPublicKeysByHost = [:]
        try applyCommonSettings()
        try useIdentity(chain: configuration.certificateChain, key: configuration.privateKey)
        httpwire_SSL_CTX_select_alpn_http11(context)
        if !configuration.clientCertificateTrustRoots.isEmpty {
            for source in configuration.clientCertificateTrustRoots { try addTrustRoots(source) }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// The SHA-256 pins a connection to `host` must match: the host's own list when it has one, else the
    /// client-wide list. Empty means no pinning for that host.
    package func pinnedPublicKeys(forHost host: String) -> [[UInt8]] {
        pinnedPublicKeysByHost[host.lowercased()] ?? pinnedPublicKeys
    }

    /// Settings shared by both sides.
    private func applyCommonSettings() throws(TransportError) {
        // RFC 9325 §3.1.1: TLS 1.2 at least.
        guard httpwire_SSL_CTX_set_min_proto_version(pointer, TLS1_2_VERSION) == 1 else {
            throw TransportError.tlsFailed(Self.openSSLReason(default: "cannot require tls 1.2"))
        }
        // Partial writes let SSL_write_ex report progress on a full socket; a moving buffer lets a retried
        // write come from another address (our slices may be re-derived between attempts).
        _ = httpwire_SSL_CTX_set_mode(
            pointer, Int(SSL_MODE_ENABLE_PARTIAL_WRITE) | Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // A peer closing without close_notify reads as end of stream: HTTP/1.1 framing (Content-Length,
        // chunked) detects truncation itself (RFC 9112 §9.8), and many servers never send close_notify.
        // Renegotiation is refused: HTTP/1.1 over TLS 1.2 has no use for it and it has a history of attacks.
        _ = SSL_CTX_set_options(pointer, httpwire_SSL_OP_IGNORE_UNEXPECTED_EOF | httpwire_SSL_OP_NO_RENEGOTIATION)
        // Read-ahead: without it OpenSSL reads each record with two read(2) calls (5-byte header, then the
        // body), 65,536 calls for 512 MiB; with it, one read takes whatever the socket holds, up to the
        // buffer below (measured here: ~8x fewer reads). Safe with edge-triggered epoll because a reader
        // only waits after SSL_read_ex reported WANT_READ, i.e. with OpenSSL's buffer empty (Reactor.swift).
        _ = SSL_CTX_ctrl(pointer, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        SSL_CTX_set_default_read_buffer_len(pointer, Self.readAheadBytes)
    }

    /// OpenSSL's read-ahead buffer per connection: several 16 KiB records per read(2), without making a
    /// thousand idle connections cost much (it is allocated while a connection reads, freed when idle
    /// only with SSL_MODE_RELEASE_BUFFERS, which is not set).
    private static let readAheadBytes = 64 * 1024

    /// Adds every certificate of `source` to the context's trust store.
    private func addTrustRoots(_ source: PEMInput) throws(TransportError) {
        switch source {
        case .file(let path):
            guard SSL_CTX_load_verify_locations(pointer, path, nil) == 1 else {
                throw TransportError.tlsFailed(
                    Self.openSSLReason(default: "cannot load ca certificates from \(path)"))
            }
        case .text(let text):
            let certificates = try Self.certificates(in: text)
            defer { certificates.forEach { X509_free($0) } }
            let store = SSL_CTX_get_cert_store(pointer)
            for certificate in certificates where X509_STORE_add_cert(store, certificate) != 1 {
                throw TransportError.tlsFailed(Self.openSSLReason(default: "cannot add a ca certificate"))
            }
        }
    }

    /// Presents `chain` (leaf first, then intermediates) with the private key `key`. Failures are
    /// `localCertificateFailed` (curl's exit 58), not handshake failures: nothing has been sent yet.
    private func useIdentity(chain: PEMInput, key: PEMInput) throws(TransportError) {
        switch chain {
        case .file(let path):
            guard SSL_CTX_use_certificate_chain_file(pointer, path) == 1 else {
                throw TransportError.localCertificateFailed(
                    Self.openSSLReason(default: "cannot load certificate \(path)"))
            }
        case .text(let text):
            let certificates = try Self.certificates(in: text)
            defer { certificates.forEach { X509_free($0) } }
            guard SSL_CTX_use_certificate(pointer, certificates[0]) == 1 else {
                throw TransportError.localCertificateFailed(Self.openSSLReason(default: "cannot use the certificate"))
            }
            for intermediate in certificates.dropFirst() {
                guard httpwire_SSL_CTX_add1_chain_cert(pointer, intermediate) == 1 else {
                    throw TransportError.localCertificateFailed(
                        Self.openSSLReason(default: "cannot add an intermediate"))
                }
            }
        }
        switch key {
        case .file(let path):
            guard SSL_CTX_use_PrivateKey_file(pointer, path, SSL_FILETYPE_PEM) == 1 else {
                throw TransportError.localCertificateFailed(
                    Self.openSSLReason(default: "cannot load private key \(path)"))
            }
        case .text(let text):
            let bio = Self.memoryBIO(text)
            defer { BIO_free(bio) }
            guard let privateKey = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                throw TransportError.localCertificateFailed(Self.openSSLReason(default: "no private key in pem text"))
            }
            defer { EVP_PKEY_free(privateKey) }
            guard SSL_CTX_use_PrivateKey(pointer, privateKey) == 1 else {
                throw TransportError.localCertificateFailed(Self.openSSLReason(default: "cannot use the private key"))
            }
        }
        guard SSL_CTX_check_private_key(pointer) == 1 else {
            throw TransportError.localCertificateFailed(Self.openSSLReason(default: "private key does not match"))
        }
    }

    /// Every certificate in PEM `text`; the caller frees them. Throws when there is none.
    private static func certificates(in text: String) throws(TransportError) -> [OpaquePointer] {
        let bio = memoryBIO(text)
        defer { BIO_free(bio) }
        var certificates: [OpaquePointer] = []
        while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(certificate) }
        // The loop ends on "no start line", which OpenSSL queues as an error; it is the normal end here.
        ERR_clear_error()
        guard !certificates.isEmpty else { throw TransportError.tlsFailed("no certificate in pem text") }
        return certificates
    }

    /// A read-only memory BIO holding a copy of `text` (BIO_new_mem_buf with length -1 stops at the NUL).
    private static func memoryBIO(_ text: String) -> OpaquePointer? {
        let bio = BIO_new(BIO_s_mem())
        var bytes = Array(text.utf8)
        _ = BIO_write(bio, &bytes, Int32(bytes.count))
        return bio
    }

    /// OpenSSL's reason for the most recent failure on this thread, lowercased; clears the error queue.
    static func openSSLReason(default fallback: String) -> String {
        let code = ERR_peek_last_error()
        defer { ERR_clear_error() }
        guard code != 0, let reason = ERR_reason_error_string(code) else { return fallback }
        return "\(fallback): \(String(cString: reason).lowercased())"
    }
}

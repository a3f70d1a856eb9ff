// TLSConfiguration: what a user can say about a client's TLS (client layer).
//
// These are plain values: which certificates to trust beyond the system store, which certificate to
// present, whether to verify at all. They are given per client (never through a process-wide environment
// variable such as SSL_CERT_FILE, which would silently change the trust of every other TLS user in the
// process) and handed to the transport as `TLSClientSettings`, from which it builds the OpenSSL context.
// Nothing here touches OpenSSL or sockets.

import HTTPWireTransport

/// Where PEM-encoded certificates or a key come from: a file, or the PEM text itself.
public enum PEMSource: Sendable, Hashable {
    /// A PEM file on disk, read when the TLS context is built.
    case file(path: String)
    /// PEM text ("-----BEGIN CERTIFICATE-----" ...), for material that never touches the disk.
    case text(String)
}

/// Client-side TLS settings.
///
/// HTTPWire always requires TLS 1.2 or newer (RFC 9325 §3.1.1: TLS 1.0 and 1.1 must not be negotiated),
/// offers ALPN "http/1.1", sends SNI for DNS names (not for IP literals: RFC 6066 §3 forbids addresses in
/// SNI) and checks the certificate against the host: a DNS name against its names, an IP literal against
/// its IP-address SANs (RFC 9110 §4.3.4, RFC 6125).
///
/// ```swift
/// var tls = TLSConfiguration()
/// tls.additionalTrustRoots = [.file(path: "/etc/my-company/root-ca.pem")]
/// tls.clientCertificateChain = .file(path: "client.pem")   // mutual TLS
/// tls.clientPrivateKey = .file(path: "client-key.pem")
/// ```
public struct TLSConfiguration: Sendable, Hashable {
    /// Trust the system's CA store (Debian: /etc/ssl/certs from ca-certificates). Default true.
    public var trustsSystemRoots: Bool
    /// Further CA certificates to trust, for this client only (a private CA, a test CA).
    public var additionalTrustRoots: [PEMSource]
    /// The certificate (and intermediates) to present when the server asks for one (mutual TLS).
    public var clientCertificateChain: PEMSource?
    /// The private key of `clientCertificateChain`, unencrypted PEM.
    public var clientPrivateKey: PEMSource?
    /// Verify the server's certificate and name. Turning this off (curl's `--insecure`) makes the connection
    /// open to any interceptor; it exists for testing only. Default true. With pins for the host, turning it
    /// off means "the pin instead of the CA check", for a self-signed server whose key you know.
    public var verifiesPeer: Bool
    /// Public keys every server must present one of (curl's `--pinnedpubkey`), checked after the certificate
    /// verification. Default empty: no pinning. A host listed in ``pinnedPublicKeysByHost`` uses that list.
    public var pinnedPublicKeys: [PublicKeyPin] = []
    /// Pins for particular hosts (the URL's host: a name or an address literal), replacing
    /// ``pinnedPublicKeys`` for them. Default empty.
    public var pinnedPublicKeysByHost: [String: [PublicKeyPin]] = [:]

    /// The defaults: system trust store, verification on, no client certificate.
    public init(
        trustsSystemRoots: Bool = true, additionalTrustRoots: [PEMSource] = [],
        clientCertificateChain: PEMSource? = nil, clientPrivateKey: PEMSource? = nil, verifiesPeer: Bool = true
    ) {
        self.trustsSystemRoots = trustsSystemRoots
        self.additionalTrustRoots = additionalTrustRoots
        self.clientCertificateChain = clientCertificateChain
        self.clientPrivateKey = clientPrivateKey
        self.verifiesPeer = verifiesPeer
    }
}

extension TLSConfiguration {
    /// The same settings in the transport's terms.
    package var transportSettings: TLSClientSettings {
        var settings = TLSClientSettings()
        settings.trustsSystemRoots = trustsSystemRoots
        settings.additionalTrustRoots = additionalTrustRoots.map(\.transportInput)
        settings.verifiesPeer = verifiesPeer
        settings.pinnedPublicKeys = pinnedPublicKeys.map(\.sha256)
        settings.pinnedPublicKeysByHost = pinnedPublicKeysByHost.mapValues { $0.map(\.sha256) }
        if let chain = clientCertificateChain {
            settings.identity = (chain.transportInput, (clientPrivateKey ?? chain).transportInput)
        }
        return settings
    }
}

extension PEMSource {
    /// The same material in the transport's terms.
    package var transportInput: PEMInput {
        switch self {
        case .file(let path): return .file(path: path)
        case .text(let text): return .text(text)
        }
    }
}

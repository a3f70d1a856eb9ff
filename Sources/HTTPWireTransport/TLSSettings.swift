// TLSSettings: what a TLS context is built from — trust, identity, verification (transport layer).
//
// Plain values, turned into an OpenSSL context by `TLSContext`. The client's public configuration
// (`TLSConfiguration` in HTTPWire) and the fixture server's (`TLSServerConfiguration`) describe the same
// things in their users' terms and translate into these; the transport itself has no public surface.
// Nothing here touches OpenSSL or sockets.

/// PEM-encoded certificates or a key: a file to read when the context is built, or the text itself.
package enum PEMInput: Sendable, Hashable {
    /// A PEM file on disk.
    case file(path: String)
    /// PEM text ("-----BEGIN CERTIFICATE-----" ...).
    case text(String)
}

/// How a client context checks servers and which certificate it presents.
package struct TLSClientSettings: Sendable, Hashable {
    /// Trust the system's CA store.
    package var trustsSystemRoots = true
    /// Further CA certificates to trust, for this context only.
    package var additionalTrustRoots: [PEMInput] = []
    /// The certificate chain to present when a server asks (mutual TLS), and its key.
    package var identity: (chain: PEMInput, key: PEMInput)? {
        get { identityChain.map { ($0, identityKey ?? $0) } }
        set {
            identityChain = newValue?.chain
            identityKey = newValue?.key
        }
    }
    /// Verify the peer's certificate and name (off only for testing: curl's `--insecure`).
    package var verifiesPeer = true
    /// SHA-256 hashes of SubjectPublicKeyInfo DER structures: a server whose key is none of these is refused
    /// after the handshake (`TransportError.publicKeyPinMismatch`). Empty: no pinning. For every host that
    /// has no entry in `pinnedPublicKeysByHost`.
    package var pinnedPublicKeys: [[UInt8]] = []
    /// Pins for particular hosts (lowercased names or address literals), replacing `pinnedPublicKeys` there.
    package var pinnedPublicKeysByHost: [String: [[UInt8]]] = [:]

    private var identityChain: PEMInput?
    private var identityKey: PEMInput?

    /// The defaults: system roots, verification on, no client certificate.
    package init() {}
}

/// What a server context presents and whom it asks for a certificate.
package struct TLSServerSettings: Sendable, Hashable {
    /// The server's certificate followed by any intermediates.
    package var certificateChain: PEMInput
    /// Its private key, unencrypted PEM.
    package var privateKey: PEMInput
    /// When not empty, clients must present a certificate issued by one of these CAs (mutual TLS).
    package var clientCertificateTrustRoots: [PEMInput]

    /// A server presenting `certificateChain` with `privateKey`.
    package init(certificateChain: PEMInput, privateKey: PEMInput, clientCertificateTrustRoots: [PEMInput] = []) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.clientCertificateTrustRoots = clientCertificateTrustRoots
    }
}

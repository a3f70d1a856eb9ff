// TLSServerConfiguration: what the fixture server presents over TLS (edge layer).
//
// The server side of TLS exists for the tests, `wire serve` and the demo only, so its settings live here
// rather than in the client library; they are handed to the transport as `TLSServerSettings`. Nothing here
// touches OpenSSL.

import HTTPWire
import HTTPWireTransport

/// Server-side TLS settings, for the fixture server and `wire serve`.
///
/// ```swift
/// let tls = TLSServerConfiguration(certificateChain: .file(path: "leaf.pem"), privateKey: .file(path: "leaf.key"))
/// ```
public struct TLSServerConfiguration: Sendable, Hashable {
    /// The server's certificate followed by any intermediates.
    public var certificateChain: PEMSource
    /// The private key of the certificate, unencrypted PEM.
    public var privateKey: PEMSource
    /// When not empty, clients must present a certificate issued by one of these CAs (mutual TLS).
    public var clientCertificateTrustRoots: [PEMSource]

    /// A server presenting `certificateChain`; client certificates required only if roots are given.
    public init(certificateChain: PEMSource, privateKey: PEMSource, clientCertificateTrustRoots: [PEMSource] = []) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.clientCertificateTrustRoots = clientCertificateTrustRoots
    }
}

extension TLSServerConfiguration {
    /// The same settings in the transport's terms.
    package var transportSettings: TLSServerSettings {
        TLSServerSettings(
            certificateChain: certificateChain.transportInput, privateKey: privateKey.transportInput,
            clientCertificateTrustRoots: clientCertificateTrustRoots.map(\.transportInput))
    }
}

// HTTPWireError+Transport: the one translation of the transport's failures into HTTPWire's public error
// (client layer).
//
// The transport reports what the kernel or OpenSSL said and which operation failed; it does not know why a
// deadline was set. The caller that set it passes the phase it was waiting in, and this file makes the case
// the CLI maps to curl's exit code: a refused connect is `couldNotConnect` (7), a timeout `timedOut(phase)`
// (28), a failed splice into a download's file `localWriteFailed` with that file's path (23). Exit codes
// themselves are decided in one place, `HTTPWireError.exitCode`.

import HTTPWireTransport

extension HTTPWireError {
    /// The public error for `failure`, met while waiting in `phase` (which only `timedOut` uses).
    package init(_ failure: TransportError, phase: Phase) {
        switch failure {
        case .timedOut: self = .timedOut(phase)
        case .couldNotResolve(let host): self = .couldNotResolveHost(host)
        case .couldNotConnect(let host, let port, let errno):
            self = .couldNotConnect(host: host, port: port, errno: errno)
        case .sendFailed(let errno): self = .sendFailed(errno: errno)
        case .receiveFailed(let errno): self = .receiveFailed(errno: errno)
        case .fileReadFailed(_, let path, let errno): self = .localReadFailed(path: path, errno: errno)
        case .fileWriteFailed(_, let path, let errno): self = .localWriteFailed(path: path, errno: errno)
        case .tlsFailed(let reason): self = .tlsHandshakeFailed(reason)
        case .localCertificateFailed(let reason): self = .localCertificateFailed(reason)
        case .peerCertificateRejected(let reason): self = .peerCertificateRejected(reason)
        case .publicKeyPinMismatch(let sha256):
            self = .pinnedPublicKeyMismatch(actual: PublicKeyPin(sha256: sha256).description)
        case .socksHandshakeFailed, .socksAuthenticationFailed, .socksConnectFailed, .socks4Failed:
            self = .socksProxyFailed(failure.description)
        }
    }

    /// The public error for `failure` met while connecting to a proxy: a name that does not resolve is the
    /// proxy's (curl's exit 5, not 6); the rest as for any connection (a refused connect is still 7).
    package init(reachingProxy failure: TransportError) {
        if case .couldNotResolve(let host) = failure {
            self = .couldNotResolveProxy(host)
        } else {
            self.init(failure, phase: .connect)
        }
    }

    /// `error` as a caller should see it: a `TransportError` translated for `phase`, anything else
    /// (`HTTPWireError`, `CancellationError`, a caller's own error) unchanged.
    package static func translating(_ error: any Error, phase: Phase) -> any Error {
        guard let transport = error as? TransportError else { return error }
        return HTTPWireError(transport, phase: phase)
    }

    /// Runs local file work (which can fail only with file errors), reporting failures as `HTTPWireError`:
    /// `try HTTPWireError.local { try file.write(bytes, at: offset) }`.
    package static func local<Value>(_ work: () throws(TransportError) -> Value) throws(HTTPWireError) -> Value {
        do {
            return try work()
        } catch {
            throw HTTPWireError(error, phase: .total)
        }
    }
}

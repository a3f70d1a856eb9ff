// HTTPWireError: the one public error type of HTTPWire, and its mapping to curl's exit codes.
// Client layer. Lower layers throw these cases (the transport knows errno and hosts, the codec's
// CodecError arrives wrapped); this file is the only place that says which exit code a failure has.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Every failure HTTPWire reports, one case per meaning, each mapping to one curl exit code.
///
/// ```swift
/// do {
///     let response = try await client.get("https://example.test/")
/// } catch let error as HTTPWireError {
///     print("wire: error: \(error)")   // one lowercase line
///     exit(error.exitCode)              // curl's meaning: 6, 7, 28, 60, ...
/// }
/// ```
/// Cancellation is reported as Swift's `CancellationError`, not as a case here.
public enum HTTPWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being waited for when a deadline passed.
    public enum Phase: String, Sendable, Hashable {
        /// Resolving, connecting and the TLS handshake.
        case connect
        /// Writing the request head or body.
        case send
        /// Waiting for the response head.
        case head
        /// Waiting for more of the response body (no byte for the idle timeout).
        case body
        /// The whole request, redirects included.
        case total
    }

    /// The URL cannot be used (bad syntax, unsupported scheme, no host). A usage error in the CLI (exit 2).
    case invalidURL(String)
    /// A request that cannot be sent as given: a field name that is not a token, a value with CR or LF
    /// (header injection), a method that is not a token. A usage error in the CLI (exit 2).
    case invalidRequest(String)
    /// DNS gave no address for the host (exit 6).
    case couldNotResolveHost(String)
    /// No address of the host accepted a TCP connection; `errno` is the last failure (exit 7). Through
    /// ``ClientConfiguration/unixSocketPath``, `host` is the socket's path and `port` is 0.
    case couldNotConnect(host: String, port: Int, errno: Int32)
    /// The response broke the HTTP/1.1 rules (exit 8).
    case malformedResponse(CodecError)
    /// The connection closed before the announced body was complete (exit 18).
    case bodyTruncated(expected: Int64?, received: Int64)
    /// A body larger than the caller's limit for collecting it into memory (exit 63, curl's
    /// "maximum file size exceeded"); also one line of ``ResponseBody/lines(maxLineBytes:)``, or one event of
    /// ``HTTPClient/events(_:maxEventBytes:reconnection:)``, larger than its limit.
    case bodyTooLarge(limit: Int)
    /// A status of 400 or more when failing on status was asked for (the CLI's `--fail`), or, in a download,
    /// any status but 200, 206 or a 416 proving the file complete (exit 22).
    case httpStatus(Int)
    /// A final response that failed the request's ``ResponseValidation`` — or a non-2xx one given to
    /// ``HTTPResponse/decode(_:using:)`` — with its head and a bounded body preview to decode the server's
    /// error from (exit 22, like `httpStatus`: curl's "the server returned an error").
    case unacceptableResponse(UnacceptableResponse)
    /// Writing a local file failed (exit 23). `EBUSY` is what a download reports when another download
    /// to the same destination — in this process or another — holds it (see ``Download``).
    case localWriteFailed(path: String, errno: Int32)
    /// A downloaded file's SHA-256 differs from the one the caller expected, so it was not put in place
    /// (exit 32). curl has no checksum check and leaves 32 unused (its `CURLE_OBSOLETE32`); aria2 documents
    /// exit status 32 as "checksum validation failed", so a script can recognise it. Both are 64 hex digits.
    case checksumMismatch(expected: String, actual: String)
    /// Reading a local file failed (exit 26).
    case localReadFailed(path: String, errno: Int32)
    /// A local file being sent changed size after its length was announced, so the request could not be
    /// completed honestly (exit 26, curl's read error). The connection is abandoned, never finished short.
    case localFileChanged(path: String, expectedSize: Int64, actualSize: Int64)
    /// A deadline passed (exit 28).
    case timedOut(Phase)
    /// The TLS handshake failed for a reason other than the peer's certificate (exit 35).
    case tlsHandshakeFailed(String)
    /// The client certificate or its private key (``TLSConfiguration/clientCertificateChain``,
    /// ``TLSConfiguration/clientPrivateKey``) could not be loaded, or they do not match (exit 58, curl's
    /// CURLE_SSL_CERTPROBLEM). Nothing was sent.
    case localCertificateFailed(String)
    /// More redirects than the policy allows (exit 47).
    case tooManyRedirects(limit: Int)
    /// The connection closed before any byte of a response (exit 52).
    case emptyReply
    /// Sending on the socket failed (exit 55).
    case sendFailed(errno: Int32)
    /// A request body had to be sent again (a 307/308 redirect or a retry) but can only be read once, like
    /// curl's "send failed to rewind" (exit 65).
    case requestBodyNotReplayable
    /// Receiving from the socket failed, for example a reset (exit 56).
    case receiveFailed(errno: Int32)
    /// The server's certificate was not trusted, with OpenSSL's reason (exit 60).
    case peerCertificateRejected(String)
    /// The server's public key is none of the pinned ones; `actual` is its pin in curl's spelling,
    /// `sha256//BASE64` (exit 90, curl's "SSL public key does not match pinned public key").
    case pinnedPublicKeyMismatch(actual: String)
    /// DNS gave no address for the proxy's host (exit 5, curl's "could not resolve proxy").
    case couldNotResolveProxy(String)
    /// The HTTP proxy answered 407 (Proxy Authentication Required, RFC 9110 §15.5.8): no credentials, or not
    /// the right ones (exit 56, as curl reports a failed CONNECT).
    case proxyAuthenticationRequired(proxy: String)
    /// The HTTP proxy refused to open a CONNECT tunnel with this status (or sent bytes after its 2xx head)
    /// (exit 56, curl's "CONNECT tunnel failed").
    case proxyTunnelFailed(status: Int)
    /// The SOCKS5 (or SOCKS4) proxy broke the protocol, refused the credentials or could not connect to the
    /// origin, with the reason (RFC 1928 §6's reply text, or SOCKS4's) (exit 97, curl's "proxy handshake
    /// error").
    case socksProxyFailed(String)
    /// A `gzip` or `deflate` body that could not be decoded (``ContentDecoding``): cut short, corrupt, or a
    /// decompression bomb past a limit. `coding` is the `Content-Encoding` value (exit 61, curl's
    /// CURLE_BAD_CONTENT_ENCODING).
    case badContentEncoding(coding: String, ContentDecodingFailure)

    /// curl's exit code for this failure: the one mapping in HTTPWire.
    public var exitCode: Int32 {
        switch self {
        case .invalidURL, .invalidRequest: return 2
        case .couldNotResolveHost: return 6
        case .couldNotConnect: return 7
        case .malformedResponse: return 8
        case .bodyTruncated: return 18
        case .httpStatus, .unacceptableResponse: return 22
        case .bodyTooLarge: return 63
        case .localWriteFailed: return 23
        case .checksumMismatch: return 32
        case .localReadFailed: return 26
        case .localFileChanged: return 26
        case .timedOut: return 28
        case .tlsHandshakeFailed: return 35
        case .localCertificateFailed: return 58
        case .tooManyRedirects: return 47
        case .emptyReply: return 52
        case .sendFailed: return 55
        case .receiveFailed: return 56
        case .requestBodyNotReplayable: return 65
        case .peerCertificateRejected: return 60
        case .pinnedPublicKeyMismatch: return 90
        case .couldNotResolveProxy: return 5
        case .proxyAuthenticationRequired, .proxyTunnelFailed: return 56
        case .socksProxyFailed: return 97
        case .badContentEncoding: return 61
        }
    }

    /// One lowercase line naming the thing and the numbers; the CLI prints `wire: error: <description>`.
    public var description: String {
        switch self {
        case .invalidURL(let reason): return reason
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .couldNotResolveHost(let host): return "could not resolve host \(host)"
        case .couldNotConnect(let host, let port, let errno):
            return TransportError.couldNotConnect(host: host, port: port, errno: errno).description
        case .malformedResponse(let error): return "malformed response: \(error)"
        case .bodyTruncated(let expected?, let received):
            return "body ended after \(received) of \(expected) bytes"
        case .bodyTruncated(nil, let received):
            return "body ended after \(received) bytes before its end was announced"
        case .httpStatus(let status): return "server answered with status \(status)"
        case .unacceptableResponse(let response): return "unacceptable response: \(response)"
        case .bodyTooLarge(let limit):
            return "response body (or one line or event of it) larger than the \(limit)-byte limit"
        case .localWriteFailed(let path, EBUSY):
            // strerror's "device or resource busy" does not say which resource. Writing a file never gives
            // EBUSY (only a rename onto a mount point could), and a download gives it for one reason: the
            // destination's lock is held by another download (`DownloadLock`).
            return "cannot write \(path): another download to it is running (errno \(EBUSY))"
        case .localWriteFailed(let path, let errno): return "cannot write \(path): \(TransportError.describe(errno))"
        case .checksumMismatch(let expected, let actual):
            return "sha-256 mismatch: expected \(expected), got \(actual)"
        case .localReadFailed(let path, let errno): return "cannot read \(path): \(TransportError.describe(errno))"
        case .localFileChanged(let path, let expectedSize, let actualSize):
            return "\(path) changed size while being sent: expected \(expectedSize) bytes, found \(actualSize)"
        case .timedOut(let phase): return "timed out (\(phase.rawValue))"
        case .tlsHandshakeFailed(let reason): return "tls handshake failed: \(reason)"
        case .localCertificateFailed(let reason): return "local certificate: \(reason)"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .emptyReply: return "server closed the connection without sending a response"
        case .sendFailed(let errno): return "send failed: \(TransportError.describe(errno))"
        case .receiveFailed(let errno): return "receive failed: \(TransportError.describe(errno))"
        case .requestBodyNotReplayable:
            return "the request body must be sent again (redirect or retry) but can only be read once"
        case .peerCertificateRejected(let reason): return "peer certificate rejected: \(reason)"
        case .pinnedPublicKeyMismatch(let actual): return "the server's public key \(actual) matches no pinned key"
        case .couldNotResolveProxy(let host): return "could not resolve proxy \(host)"
        case .proxyAuthenticationRequired(let proxy):
            return "proxy \(proxy) requires authentication (407): give user:password in the proxy URL"
        case .proxyTunnelFailed(let status): return "the proxy refused the CONNECT tunnel with status \(status)"
        case .socksProxyFailed(let reason): return reason
        case .badContentEncoding(let coding, let failure): return "bad content encoding (\(coding)): \(failure)"
        }
    }
}

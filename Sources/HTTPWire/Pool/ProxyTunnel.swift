// ProxyTunnel: opening a CONNECT tunnel through an HTTP proxy (pool layer).
//
// For an `https://` URL an HTTP proxy cannot forward requests itself — it would have to see the plaintext —
// so the client asks it to open a TCP connection to the origin and relay bytes blindly (RFC 9110 §9.3.6):
//
//     CONNECT origin.test:443 HTTP/1.1
//     Host: origin.test:443
//     Proxy-Authorization: Basic YWxpY2U6c2VjcmV0      (only when the proxy URL has credentials)
//
// A 2xx answer turns the connection into a tunnel, and TLS then runs through it *to the origin*: SNI and the
// certificate check are the origin's, never the proxy's, so the proxy sees only ciphertext. The CONNECT and
// its answer are HTTP, so the codec writes and reads them (ResponseDecoder already treats a 2xx to CONNECT as
// the end of HTTP on that connection). Anything but a 2xx is a typed error, and the connection is closed:
// a tunnel that failed is never pooled. This file does not do TLS, and it never forwards the proxy's
// credentials anywhere but in this one request to the proxy.

import HTTPWireCodec
import HTTPWireTransport

/// Opens CONNECT tunnels.
///
/// ```swift
/// let socket = try await TCPSocket.connect(host: proxy.host, port: proxy.port, deadline: deadline)
/// try await ProxyTunnel.open(over: socket, to: origin, through: proxy, deadline: deadline)
/// // socket now reaches origin.host:origin.port; run TLS over it
/// ```
package enum ProxyTunnel {
    /// The most bytes of the proxy's answer read before giving up on it (its head; a body is never read).
    private static let readSize = 16 * 1024

    /// Sends the CONNECT and reads the proxy's answer; on failure the socket is closed. Throws
    /// `HTTPWireError.proxyAuthenticationRequired` (407), `proxyTunnelFailed(status:)` (any other non-2xx),
    /// `malformedResponse` (an answer that is not HTTP, or bytes after a 2xx head), the socket's
    /// `TransportError`s and `CancellationError`.
    package static func open(
        over socket: TCPSocket, to origin: OriginKey, through proxy: ProxyEndpoint, deadline: Deadline
    ) async throws {
        do {
            try await exchange(over: socket, to: origin, through: proxy, deadline: deadline)
        } catch {
            await socket.close()
            throw error
        }
    }

    /// The request bytes: the authority-form target, `Host` with the same authority (RFC 9110 §9.3.6:
    /// "CONNECT server.example.com:80 HTTP/1.1 / Host: server.example.com"), and the proxy's credentials.
    package static func request(to origin: OriginKey, through proxy: ProxyEndpoint) throws(CodecError) -> [UInt8] {
        var fields: HTTPFields = ["Host": origin.authority]
        if let authorization = proxy.basicAuthorization {
            fields.append(name: "Proxy-Authorization", value: authorization)
        }
        var bytes: [UInt8] = []
        try RequestEncoder.encodeHead(
            RequestHead(method: .connect, target: origin.authority, fields: fields), framing: .none, into: &bytes)
        return bytes
    }

    private static func exchange(
        over socket: TCPSocket, to origin: OriginKey, through proxy: ProxyEndpoint, deadline: Deadline
    ) async throws {
        let bytes: [UInt8]
        do {
            bytes = try request(to: origin, through: proxy)
        } catch {
            throw HTTPWireError.invalidRequest("cannot send CONNECT: \(error)")
        }
        try await socket.write(bytes, deadline: deadline)
        var decoder = ResponseDecoder()
        decoder.expectResponse(to: .connect)
        var buffer: [UInt8] = []
        while true {
            let event: ResponseEvent
            do {
                event = try decoder.nextEvent()
            } catch {
                throw HTTPWireError.malformedResponse(error)
            }
            switch event {
            case .informational:
                continue  // RFC 9110 §15.2: a 1xx is followed by the final answer
            case .head(let head):
                switch head.status.rawValue {
                case 200..<300:
                    // The origin has not been sent a byte yet (TLS speaks first), so a byte already here
                    // came from the proxy after its own answer: it would be fed to TLS as the origin's.
                    guard decoder.unconsumedBytes.isEmpty else {
                        throw HTTPWireError.proxyTunnelFailed(status: head.status.rawValue)
                    }
                    return
                case 407:
                    // RFC 9110 §15.5.8: the proxy wants (other) credentials, named in Proxy-Authenticate.
                    throw HTTPWireError.proxyAuthenticationRequired(proxy: proxy.description)
                default:
                    throw HTTPWireError.proxyTunnelFailed(status: head.status.rawValue)
                }
            case .needMoreData:
                buffer.removeAll(keepingCapacity: true)
                let count = try await socket.read(into: &buffer, maxBytes: readSize, deadline: deadline)
                decoder.feed(count == 0 ? [] : buffer[..<count])
            case .body, .end, .paused:
                preconditionFailure("decoder event \(event) before the proxy's answer to CONNECT")
            }
        }
    }
}

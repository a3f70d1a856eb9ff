// SOCKS5Handshake: the client side of a SOCKS5 handshake as a state machine over bytes (transport layer).
//
// SOCKS5 (RFC 1928) is not HTTP: it is a small binary exchange that asks a proxy to open a TCP connection to
// a destination and then relay bytes both ways. Three messages go out — a greeting listing authentication
// methods, optionally a user name and password (RFC 1929), and a CONNECT naming the destination — and each
// answer is read and checked. This file is only that grammar: it turns received bytes into the next bytes
// to send, and never touches a socket, a clock or a resolver (`SOCKS5Tunnel` performs its actions). Every
// byte it reads comes from a proxy, which may be hostile or broken, so every field is checked, nothing is
// trusted to be short, and the machine asks for exactly the bytes the current answer still needs: it never
// reads past the end of the handshake into the destination's bytes. It is fuzzed for that reason.

/// The client side of a SOCKS5 handshake (RFC 1928), with RFC 1929 user/password authentication.
///
/// ```swift
/// var handshake = try SOCKS5Handshake(destination: .name("example.test"), port: 443, credentials: nil)
/// var action = handshake.start()                      // .send(greeting, thenReceive: 2)
/// while true {
///     switch action {
///     case .send(let bytes, let count): try await write(bytes); action = try handshake.bytesReceived(read(count))
///     case .receive(let count): action = try handshake.bytesReceived(read(count))
///     case .established: return                        // the socket now carries the destination's bytes
///     }
/// }
/// ```
///
/// Feeding an empty slice means the proxy closed the connection. Failures throw `TransportError`:
/// `socksHandshakeFailed` (the proxy broke the protocol), `socksAuthenticationFailed`, `socksConnectFailed`.
package struct SOCKS5Handshake: Sendable {
    /// The destination as the CONNECT names it (RFC 1928 §5, `ATYP`).
    package enum Destination: Sendable, Hashable {
        /// A host name the proxy resolves (`ATYP` 3): what `socks5h://` sends.
        case name(String)
        /// An IPv4 address, 4 bytes in network order (`ATYP` 1).
        case ipv4([UInt8])
        /// An IPv6 address, 16 bytes in network order (`ATYP` 4).
        case ipv6([UInt8])
    }

    /// What the owner does next.
    package enum Action: Sendable, Hashable {
        /// Write `bytes`, then read at most `thenReceive` bytes and report them.
        case send([UInt8], thenReceive: Int)
        /// Read at most this many bytes and report them (the answer so far is incomplete).
        case receive(Int)
        /// The proxy connected to the destination: the socket is now a tunnel to it.
        case established
    }

    private enum State: Sendable {
        /// Nothing sent yet. Next: awaitingMethod (start()).
        case idle
        /// The greeting was sent; its 2-byte answer is being read. Next: awaitingAuthentication,
        /// awaitingReply, failed.
        case awaitingMethod
        /// The user name and password were sent; the 2-byte status is being read. Next: awaitingReply, failed.
        case awaitingAuthentication
        /// The CONNECT was sent; the reply (4 bytes, then an address whose length the 4th byte gives) is being
        /// read. Next: established, failed.
        case awaitingReply
        /// The tunnel is open. Next: none.
        case established
        /// A failure was thrown. Next: none.
        case failed
    }

    /// RFC 1928 §3: the version byte that starts every SOCKS5 message.
    private static let version: UInt8 = 5
    /// RFC 1928 §3 method codes.
    private static let noAuthentication: UInt8 = 0x00
    private static let userPassword: UInt8 = 0x02
    private static let noAcceptableMethod: UInt8 = 0xFF

    private var state = State.idle
    /// The bytes of the answer being read, so far (at most one answer: 4 + 1 + 255 + 2 bytes).
    private var pending: [UInt8] = []
    private let connectRequest: [UInt8]
    private let authenticationRequest: [UInt8]?

    /// Prepares the messages for `destination` and `port`, with `credentials` for RFC 1929 when given.
    /// Throws `socksHandshakeFailed` for what SOCKS5 cannot carry: a host name of 0 or more than 255 bytes,
    /// an address of the wrong length, a user name of 0 or more than 255 bytes, a password over 255 bytes.
    package init(
        destination: Destination, port: Int, credentials: (user: String, password: String)?
    ) throws(TransportError) {
        guard (0...65535).contains(port) else { throw .socksHandshakeFailed("port \(port) out of range") }
        // RFC 1928 §4: VER CMD RSV ATYP DST.ADDR DST.PORT, CMD 1 = CONNECT, the port in network order.
        var request: [UInt8] = [Self.version, 0x01, 0x00]
        switch destination {
        case .name(let name):
            let bytes = Array(name.utf8)
            // §5: "the first octet of the address field contains the number of octets of name that follow".
            guard (1...255).contains(bytes.count) else {
                throw .socksHandshakeFailed("host name of \(bytes.count) bytes (socks5 allows 1 to 255)")
            }
            request += [0x03, UInt8(bytes.count)] + bytes
        case .ipv4(let address):
            guard address.count == 4 else { throw .socksHandshakeFailed("ipv4 address of \(address.count) bytes") }
            request += [0x01] + address
        case .ipv6(let address):
            guard address.count == 16 else { throw .socksHandshakeFailed("ipv6 address of \(address.count) bytes") }
            request += [0x04] + address
        }
        request += [UInt8(port >> 8), UInt8(port & 0xFF)]
        connectRequest = request
        if let credentials {
            // RFC 1929 §2: VER(1) ULEN UNAME PLEN PASSWD. The RFC gives both lengths as 1 to 255; an empty
            // password is sent as PLEN 0, as curl does, because servers that check only the user accept it.
            let user = Array(credentials.user.utf8)
            let password = Array(credentials.password.utf8)
            guard (1...255).contains(user.count) else {
                throw .socksHandshakeFailed("user name of \(user.count) bytes (rfc 1929 allows 1 to 255)")
            }
            guard password.count <= 255 else {
                throw .socksHandshakeFailed("password of \(password.count) bytes (rfc 1929 allows up to 255)")
            }
            authenticationRequest = [0x01, UInt8(user.count)] + user + [UInt8(password.count)] + password
        } else {
            authenticationRequest = nil
        }
    }

    /// The greeting (RFC 1928 §3: VER NMETHODS METHODS): "no authentication", and "user/password" too when
    /// credentials were given — the proxy chooses.
    package mutating func start() -> Action {
        guard case .idle = state else { preconditionFailure("SOCKS5Handshake.start() in state \(state)") }
        state = .awaitingMethod
        let methods =
            authenticationRequest == nil ? [Self.noAuthentication] : [Self.noAuthentication, Self.userPassword]
        return .send([Self.version, UInt8(methods.count)] + methods, thenReceive: 2)
    }

    /// Reports bytes read from the proxy (never more than the last action asked for); an empty slice means
    /// the proxy closed the connection. Returns what to do next.
    package mutating func bytesReceived(_ bytes: ArraySlice<UInt8>) throws(TransportError) -> Action {
        do {
            return try step(bytes)
        } catch {
            state = .failed
            throw error
        }
    }

    private mutating func step(_ bytes: ArraySlice<UInt8>) throws(TransportError) -> Action {
        switch state {
        case .idle, .established, .failed:
            preconditionFailure("SOCKS5Handshake received bytes in state \(state)")
        case .awaitingMethod, .awaitingAuthentication, .awaitingReply:
            break
        }
        if bytes.isEmpty { throw .socksHandshakeFailed("the proxy closed the connection during the handshake") }
        let wanted = missingByteCount()
        // The owner reads at most what was asked for; more would be the destination's bytes, read too early.
        precondition(bytes.count <= wanted, "\(bytes.count) bytes received, \(wanted) asked for")
        pending += bytes
        // The reply's fixed part (VER REP RSV ATYP) is judged as soon as it is here: a wrong version, a
        // refusal or an unknown address type ends the handshake without waiting for bytes a broken or
        // refusing proxy may never send.
        if case .awaitingReply = state, pending.count >= 4 { try checkReplyHeader(pending) }
        let stillMissing = missingByteCount()
        if stillMissing > 0 { return .receive(stillMissing) }
        let answer = pending
        pending = []
        switch state {
        case .awaitingMethod: return try methodChosen(answer)
        case .awaitingAuthentication: return try authenticationAnswered(answer)
        case .awaitingReply: return try connectAnswered(answer)
        case .idle, .established, .failed: preconditionFailure("SOCKS5Handshake in state \(state)")
        }
    }

    /// How many more bytes the answer being read needs, judged from the bytes it has so far.
    private func missingByteCount() -> Int {
        switch state {
        case .awaitingMethod, .awaitingAuthentication:
            return 2 - pending.count
        case .awaitingReply:
            // VER REP RSV ATYP, then the bound address (by ATYP) and a 2-byte port (RFC 1928 §6).
            guard pending.count >= 4 else { return 4 - pending.count }
            switch pending[3] {
            case 0x01: return 4 + 4 + 2 - pending.count
            case 0x04: return 4 + 16 + 2 - pending.count
            case 0x03:
                guard pending.count >= 5 else { return 5 - pending.count }
                return 5 + Int(pending[4]) + 2 - pending.count
            default:
                return 0  // an unknown address type: its length is unknowable, so the reply is judged now
            }
        case .idle, .established, .failed:
            return 0
        }
    }

    /// RFC 1928 §3: the proxy's METHOD selection message, VER METHOD.
    private mutating func methodChosen(_ answer: [UInt8]) throws(TransportError) -> Action {
        guard answer[0] == Self.version else {
            throw .socksHandshakeFailed("the proxy answered the greeting with version \(answer[0]), not 5")
        }
        switch answer[1] {
        case Self.noAuthentication:
            state = .awaitingReply
            return .send(connectRequest, thenReceive: 4)
        case Self.userPassword:
            // A proxy may only choose a method that was offered (RFC 1928 §3).
            guard let authenticationRequest else {
                throw .socksAuthenticationFailed("the proxy requires a user name and password (none given)")
            }
            state = .awaitingAuthentication
            return .send(authenticationRequest, thenReceive: 2)
        case Self.noAcceptableMethod:
            let offered = authenticationRequest == nil ? "no authentication" : "no authentication or user/password"
            throw .socksAuthenticationFailed("the proxy accepts none of the offered methods (\(offered))")
        default:
            throw .socksHandshakeFailed("the proxy chose method \(answer[1]), which was not offered")
        }
    }

    /// RFC 1929 §2: the status answer, VER STATUS; STATUS 0 is success, anything else a refusal.
    private mutating func authenticationAnswered(_ answer: [UInt8]) throws(TransportError) -> Action {
        // RFC 1929 gives the sub-negotiation version as 1; some proxies echo SOCKS' 5 there, which is harmless.
        guard answer[0] == 0x01 || answer[0] == Self.version else {
            throw .socksHandshakeFailed("the proxy answered the credentials with version \(answer[0]), not 1")
        }
        guard answer[1] == 0 else {
            throw .socksAuthenticationFailed("the proxy refused the user name and password (status \(answer[1]))")
        }
        state = .awaitingReply
        return .send(connectRequest, thenReceive: 4)
    }

    /// RFC 1928 §6: the reply's fixed part, VER REP RSV ATYP.
    private func checkReplyHeader(_ answer: [UInt8]) throws(TransportError) {
        guard answer[0] == Self.version else {
            throw .socksHandshakeFailed("the proxy answered the connect with version \(answer[0]), not 5")
        }
        // A refusal is reported as such even when its address is garbage: the connection is not used anyway.
        guard answer[1] == 0 else { throw .socksConnectFailed(reply: answer[1]) }
        // RSV (answer[2]) is "X'00'" in the RFC; it carries no meaning, so another value is let through.
        guard [0x01, 0x03, 0x04].contains(answer[3]) else {
            throw .socksHandshakeFailed("the proxy's reply has address type \(answer[3]), not 1, 3 or 4")
        }
    }

    /// RFC 1928 §6: the whole reply, VER REP RSV ATYP BND.ADDR BND.PORT, its fixed part already checked. The
    /// bound address is read and dropped: for CONNECT it only says which local address the proxy used.
    private mutating func connectAnswered(_ answer: [UInt8]) throws(TransportError) -> Action {
        try checkReplyHeader(answer)
        state = .established
        return .established
    }
}

// SOCKS5TestServer: a small SOCKS5 proxy inside the test process (test support).
//
// dante is the real SOCKS5 server of the proxy tests, but its RFC 1929 method checks the system's password
// database, which tests must not change, and it cannot be told to answer with a chosen failure code. This
// server fills those gaps: it can require a user name and password of its own, answer CONNECT with any
// reply code, and it records what each client sent (methods, credentials, address type, destination), so a
// test can see that `socks5h://` sent a name and `socks5://` an address. Blocking sockets on threads of
// its own: it never needs the cooperative pool, so a busy pool cannot stall it. Loopback only.

import Foundation
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// A SOCKS5 server on 127.0.0.1 that relays to the destinations it is asked for.
final class SOCKS5TestServer: Sendable {
    /// What one client's handshake said.
    struct Request: Sendable, Equatable {
        /// The methods the greeting offered.
        var methods: [UInt8]
        /// The RFC 1929 user name and password sent, if any.
        var user: String?
        var password: String?
        /// `ATYP`: 1 IPv4, 3 a name, 4 IPv6.
        var addressType: UInt8 = 0
        /// The destination as sent: a name, or an address in text.
        var host = ""
        var port = 0
    }

    /// The port the server listens on.
    let port: Int
    private let listener: Int32
    private let requiredCredentials: (user: String, password: String)?
    private let replyCode: UInt8
    private let seen = LockedState<[Request]>([])

    /// Starts listening. With `requiredCredentials`, clients must authenticate (RFC 1929) with exactly
    /// those; `replyCode` other than 0 answers every CONNECT with that failure.
    init(requiredCredentials: (user: String, password: String)? = nil, replyCode: UInt8 = 0) throws {
        self.requiredCredentials = requiredCredentials
        self.replyCode = replyCode
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The handshakes seen so far, in order.
    var requests: [Request] { seen.withLock { $0 } }

    /// Stops accepting; connections being relayed end when their peers close.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in
                serve(client)
                close(client)
            }
            thread.start()
        }
    }

    /// One client: greeting, optional authentication, CONNECT, then relaying until either side closes.
    private func serve(_ client: Int32) {
        guard let head = Self.read(client, 2), head[0] == 5, let methods = Self.read(client, Int(head[1])) else {
            return
        }
        var request = Request(methods: methods)
        if let required = requiredCredentials {
            guard methods.contains(2) else {
                Self.write(client, [5, 0xFF])
                record(request)
                return
            }
            Self.write(client, [5, 2])
            guard let version = Self.read(client, 2), version[0] == 1, let user = Self.read(client, Int(version[1])),
                let passwordLength = Self.read(client, 1), let password = Self.read(client, Int(passwordLength[0]))
            else { return }
            request.user = String(decoding: user, as: UTF8.self)
            request.password = String(decoding: password, as: UTF8.self)
            guard request.user == required.user, request.password == required.password else {
                Self.write(client, [1, 1])
                record(request)
                return
            }
            Self.write(client, [1, 0])
        } else {
            Self.write(client, [5, 0])
        }
        guard let connect = Self.read(client, 4), connect[0] == 5, connect[1] == 1 else { return }
        request.addressType = connect[3]
        switch connect[3] {
        case 1:
            guard let address = Self.read(client, 4) else { return }
            request.host = address.map(String.init).joined(separator: ".")
        case 3:
            guard let length = Self.read(client, 1), let name = Self.read(client, Int(length[0])) else { return }
            request.host = String(decoding: name, as: UTF8.self)
        case 4:
            guard let address = Self.read(client, 16) else { return }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            _ = inet_ntop(AF_INET6, address, &text, socklen_t(text.count))
            request.host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        default:
            return
        }
        guard let portBytes = Self.read(client, 2) else { return }
        request.port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        record(request)
        guard replyCode == 0, let upstream = Self.connect(host: request.host, port: request.port) else {
            Self.write(client, [5, replyCode == 0 ? 5 : replyCode, 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        defer { close(upstream) }
        Self.write(client, [5, 0, 0, 1, 127, 0, 0, 1, 0, 0])
        Self.relay(client, upstream)
    }

    private func record(_ request: Request) {
        seen.withLock { $0.append(request) }
    }

    /// Exactly `count` bytes, or nil when the peer closed first.
    private static func read(_ descriptor: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, count - filled, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }

    private static func write(_ descriptor: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// A blocking connection to `host` (a name or an address literal) on `port`.
    private static func connect(host: String, port: Int) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            let descriptor = socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
            if descriptor >= 0 {
                if Glibc.connect(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                    return descriptor
                }
                close(descriptor)
            }
            entry = current.pointee.ai_next
        }
        return nil
    }

    /// Copies bytes both ways until one side closes.
    private static func relay(_ first: Int32, _ second: Int32) {
        var descriptors = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let ready = poll(&descriptors, 2, 30_000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return }
            for (index, entry) in descriptors.enumerated() where entry.revents != 0 {
                let from = entry.fd
                let to = index == 0 ? second : first
                let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress!, $0.count, 0) }
                guard count > 0 else { return }
                write(to, Array(buffer[..<count]))
            }
        }
    }
}

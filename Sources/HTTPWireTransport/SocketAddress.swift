// SocketAddress: one IPv4 or IPv6 address and port, or a Unix-domain socket's path, as the socket calls want
// it (transport layer).
//
// getaddrinfo hands out linked lists of C structures that must be freed; the resolver copies each entry into
// a `SocketAddress` (a `sockaddr_storage` by value) so addresses can be kept, sent between tasks and printed
// without touching C memory again. A Unix-domain address (unix(7): a `sockaddr_un` naming a socket file, as
// Docker's `/var/run/docker.sock`) fits the same storage. No system calls other than formatting (`inet_ntop`)
// happen here.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 socket address with its port, or the path of a Unix-domain socket.
package struct SocketAddress: Sendable, CustomStringConvertible {
    /// The C structure, large enough for either family.
    package var storage: sockaddr_storage
    /// How many bytes of `storage` are meaningful.
    package var length: socklen_t

    /// Copies `length` bytes of a C socket address.
    package init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
        }
        self.storage = storage
        self.length = length
    }

    /// Runs a socket call that fills in an address (`getsockname`, `accept4`) and returns the address
    /// with the call's own result.
    package static func filled<Result>(
        by body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) throws -> Result
    ) rethrows -> (address: SocketAddress, result: Result) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = try withUnsafeMutablePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, &length) }
        }
        var address = SocketAddress(storage: storage, length: length)
        address.length = min(length, socklen_t(MemoryLayout<sockaddr_storage>.size))
        return (address, result)
    }

    private init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// The address of the Unix-domain socket file at `path` (unix(7)), or nil when the path is empty, holds a
    /// NUL byte, or is longer than `sun_path` can hold (107 bytes and the NUL that ends it): the kernel would
    /// refuse it, and a truncated path would name another file.
    package init?(unixSocketPath path: String) {
        var address = sockaddr_un()
        let pathCapacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < pathCapacity, !bytes.contains(0) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }  // the rest stays zero: the NUL
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let length = socklen_t(pathOffset + bytes.count + 1)
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
        }
        self.init(storage: storage, length: length)
    }

    /// `AF_INET`, `AF_INET6` or `AF_UNIX`.
    package var family: Int32 { Int32(storage.ss_family) }

    /// Whether this is an IPv6 address.
    package var isIPv6: Bool { family == AF_INET6 }

    /// Whether this is an IPv4 address.
    package var isIPv4: Bool { family == AF_INET }

    /// Whether this is a Unix-domain socket's path (no host, no port, no TCP).
    package var isUnixDomain: Bool { family == AF_UNIX }

    /// The IP address's bytes in network order, as SOCKS requests carry them: 4 for IPv4 (`sin_addr`, at
    /// offset 4 of a `sockaddr_in`), 16 for IPv6 (`sin6_addr`, at offset 8 of a `sockaddr_in6`); empty for a
    /// Unix-domain path.
    var addressBytes: [UInt8] {
        withUnsafeBytes(of: storage) { bytes in
            isIPv6 ? Array(bytes[8..<24]) : isIPv4 ? Array(bytes[4..<8]) : []
        }
    }

    /// The port, in host byte order; 0 for a Unix-domain socket, which has none.
    package var port: Int {
        guard !isUnixDomain else { return 0 }
        return withUnsafeBytes(of: storage) { bytes in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        }
    }

    /// Calls `body` with the address as the `sockaddr` pointer the socket calls take.
    package func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The address without port: `"127.0.0.1"`, `"::1"`; a Unix-domain socket's path.
    package var host: String {
        if isUnixDomain {
            let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
            return withUnsafeBytes(of: storage) { bytes in
                // An accepted client's socket is usually unnamed: its length stops at the family.
                let path = bytes[pathOffset..<max(pathOffset, Int(length))].prefix { $0 != 0 }
                return String(decoding: path, as: UTF8.self)
            }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafeBytes(of: storage) { bytes in
            let offset = family == AF_INET6 ? 8 : 4  // sin6_addr / sin_addr
            _ = inet_ntop(family, bytes.baseAddress! + offset, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `"127.0.0.1:8080"`, `"[::1]:8080"`, or a Unix-domain socket's path (`"unnamed unix socket"` for the
    /// client end a server accepted, which has no path).
    package var description: String {
        if isUnixDomain { return host.isEmpty ? "unnamed unix socket" : host }  // an accepted client's, usually
        return isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

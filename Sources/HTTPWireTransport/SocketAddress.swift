// SocketAddress: one IPv4 or IPv6 address and port, as the socket calls want it (transport layer).
//
// getaddrinfo hands out linked lists of C structures that must be freed; the resolver copies each entry into
// a `SocketAddress` (a `sockaddr_storage` by value) so addresses can be kept, sent between tasks and printed
// without touching C memory again. No system calls other than formatting (`inet_ntop`) happen here.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 socket address with its port.
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

    /// `AF_INET` or `AF_INET6`.
    package var family: Int32 { Int32(storage.ss_family) }

    /// Whether this is an IPv6 address.
    package var isIPv6: Bool { family == AF_INET6 }

    /// The port, in host byte order.
    package var port: Int {
        withUnsafeBytes(of: storage) { bytes in
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

    /// The address without port: `"127.0.0.1"`, `"::1"`.
    package var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafeBytes(of: storage) { bytes in
            let offset = family == AF_INET6 ? 8 : 4  // sin6_addr / sin_addr
            _ = inet_ntop(family, bytes.baseAddress! + offset, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `"127.0.0.1:8080"` or `"[::1]:8080"`.
    package var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

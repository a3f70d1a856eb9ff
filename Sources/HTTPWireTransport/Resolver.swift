// Resolver: host name to socket addresses, with getaddrinfo on the blocking worker (transport layer).
//
// A literal address ("127.0.0.1", "::1") is parsed on the spot with AI_NUMERICHOST and never reaches DNS.
// A name goes to getaddrinfo on the `BlockingWorker.resolver`, because getaddrinfo blocks and cannot be made to
// report readiness. Both families are asked for (AF_UNSPEC); the answer is reordered so IPv6 and IPv4
// alternate (RFC 8305 §4: interleave families so that one broken family cannot delay the other for long).
// This file neither opens sockets nor knows about HTTP.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Turns host names into addresses.
///
/// ```swift
/// let addresses = try await Resolver.resolve(host: "localhost", port: 8080, deadline: deadline)
/// ```
package enum Resolver {
    /// Every address of `host` (a DNS name or an IPv4/IPv6 literal without brackets) at `port`, interleaved
    /// by family. Throws `TransportError.couldNotResolve` when there is none, `TransportError.timedOut`
    /// when DNS is slower than `deadline`, and `CancellationError`.
    package static func resolve(host: String, port: Int, deadline: Deadline) async throws -> [SocketAddress] {
        if let literal = try? lookUp(host: host, port: port, numericOnly: true) { return literal }
        let lookup: @Sendable () throws -> [SocketAddress] = { try lookUp(host: host, port: port, numericOnly: false) }
        if deadline.isNever { return try await BlockingWorker.resolver.run(lookup) }
        // Race the lookup against the deadline; whichever ends first cancels the other.
        return try await withThrowingTaskGroup(of: [SocketAddress].self) { group in
            group.addTask { try await BlockingWorker.resolver.run(lookup) }
            group.addTask {
                try await Reactor.shared.sleep(until: deadline)
                throw TransportError.timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    /// The address of an IPv4 or IPv6 literal, without any DNS; nil for a name.
    package static func literalAddress(host: String, port: Int) -> SocketAddress? {
        (try? lookUp(host: host, port: port, numericOnly: true))?.first
    }

    /// getaddrinfo itself; blocks unless `numericOnly`.
    private static func lookUp(host: String, port: Int, numericOnly: Bool) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { throw TransportError.couldNotResolve(host: host) }
        defer { freeaddrinfo(list) }
        var version6: [SocketAddress] = []
        var version4: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                let socketAddress = SocketAddress(address, length: current.pointee.ai_addrlen)
                if socketAddress.family == AF_INET6 {
                    version6.append(socketAddress)
                } else if socketAddress.family == AF_INET {
                    version4.append(socketAddress)
                }
            }
            entry = current.pointee.ai_next
        }
        // getaddrinfo already sorted by RFC 6724 preference; keep its first family first, then alternate.
        let firstIsIPv6 = list.pointee.ai_family == AF_INET6
        var (primary, secondary) = firstIsIPv6 ? (version6, version4) : (version4, version6)
        var ordered: [SocketAddress] = []
        ordered.reserveCapacity(primary.count + secondary.count)
        primary.reverse()
        secondary.reverse()
        while !primary.isEmpty || !secondary.isEmpty {
            if let next = primary.popLast() { ordered.append(next) }
            if let next = secondary.popLast() { ordered.append(next) }
        }
        guard !ordered.isEmpty else { throw TransportError.couldNotResolve(host: host) }
        return ordered
    }
}

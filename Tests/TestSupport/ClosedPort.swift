// ClosedPort: a loopback port on which nothing listens and which nobody else can take (test support,
// shared by HTTPWireTests and WireCLITests).
//
// "Connect to a closed port" tests used to stop a server and connect to the port it had: in a parallel run
// another test's server can be given that very port by the kernel in between and answer 200. A port held
// by a TCP socket that is bound but never listens is refused (ECONNREFUSED: the kernel answers the SYN with
// a reset) for as long as the socket lives, and no one else can bind it: the socket does not set
// SO_REUSEADDR, and the kernel never hands an explicitly bound port out as an ephemeral one. The socket is
// plain Glibc, not the library's transport: this is the test's fixture, not code under test.

#if canImport(Glibc)
    import Glibc
#endif

/// A port on 127.0.0.1 that refuses connections while this value lives.
///
/// ```swift
/// try await withClosedPort { port in
///     await #expect(throws: HTTPWireError.couldNotConnect(host: "127.0.0.1", port: port, errno: ECONNREFUSED)) {
///         _ = try await client.get("http://127.0.0.1:\(port)/")
///     }
/// }
/// ```
public final class ClosedPort: Sendable {
    /// The held port.
    public let port: Int
    private let descriptor: Int32

    /// Binds a TCP socket to 127.0.0.1 on a port the kernel picks, and never listens on it.
    /// - Throws: ``Failure`` with the errno of `socket`, `bind` or `getsockname`.
    public init() throws(Failure) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 ? getsockname(descriptor, generic, &length) : -1
            }
        }
        guard bound == 0 else {
            let failure = Failure(call: "bind", errno: errno)
            close(descriptor)
            throw failure
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }

    /// Why no port could be held.
    public struct Failure: Error, CustomStringConvertible {
        /// The system call that failed.
        public var call: String
        /// Its errno.
        public var errno: Int32

        public var description: String { "\(call) failed for a closed port (errno \(errno))" }
    }
}

/// Runs `body` with a port that refuses connections until `body` returns.
public func withClosedPort<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: (Int) async throws -> Result
) async throws -> Result {
    let closed = try ClosedPort()
    defer { withExtendedLifetime(closed) {} }
    return try await body(closed.port)
}

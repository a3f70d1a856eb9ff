// SocketLiveness: "has the peer said anything?" for an idle socket (transport layer).
// One non-blocking peek, made by the calling task itself (`Reactor.performAttemptingHere`: it never waits,
// so it never reaches the reactor thread). It knows
// nothing of HTTP: the pool uses it to avoid reusing a connection the server has closed.

#if canImport(Glibc)
    import Glibc
#endif

extension TCPSocket {
    /// True when no byte and no end of stream is waiting on the socket: `recv(MSG_PEEK | MSG_DONTWAIT)` says
    /// "would block". False when data or the peer's FIN (0) is there, or on an error such as a reset.
    /// Never waits: the answer is about this instant.
    package func hasNothingToRead() async throws -> Bool {
        let descriptor = self.descriptor
        guard descriptor.isOpen else { return false }
        return try await Reactor.shared.performAttemptingHere(on: descriptor, deadline: .never) {
            var byte: UInt8 = 0
            let result = recv(descriptor.rawValue, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if result < 0 {
                let code = errno
                return .finished(code == EAGAIN || code == EWOULDBLOCK)
            }
            return .finished(false)
        }
    }
}

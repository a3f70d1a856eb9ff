// Syscall: the one place where HTTPWire reads `errno` (transport layer).
//
// Every system call the transport makes goes through `Syscall.run`, which captures `errno` once, right
// after the call, and sorts the failure into one of three kinds:
// - `EINTR`: a signal interrupted the call; it is simply made again.
// - `EAGAIN`/`EWOULDBLOCK`: the descriptor is non-blocking and not ready; that is not an error but a
//   value, `.wouldBlock`, and the caller waits for readiness on the reactor.
// - `EBADF`/`EFAULT`: a closed descriptor or a bad pointer can only be a bug in HTTPWire itself, so it stops
//   the process with the call's name instead of turning into an error a user would have to interpret.
// Everything else is thrown as `SystemCallError`; the transport's types translate it into a
// `TransportError` naming the operation (adding the host or the path they know). This file knows nothing of sockets or HTTP.

#if canImport(Glibc)
    import Glibc
#endif

/// The outcome of a non-blocking system call that did not fail: it finished, or it would have blocked.
package enum SyscallResult<Value> {
    /// The call finished and returned this value.
    case done(Value)
    /// The descriptor was not ready (`EAGAIN`); wait for readiness and try again.
    case wouldBlock
}

extension SyscallResult: Sendable where Value: Sendable {}

/// A system call failed with an `errno` that is neither `EINTR` nor `EAGAIN`.
package struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name of the call, for messages: `"connect"`, `"sendfile"`.
    package var call: String
    /// The `errno` captured right after the call.
    package var errno: Int32

    /// Records a failure of `call` with `errno`.
    package init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// `"connect: connection refused (errno 111)"`.
    package var description: String { "\(call): \(TransportError.describe(errno))" }
}

/// The system-call wrapper: retries `EINTR`, returns `EAGAIN` as `.wouldBlock`, traps on `EBADF`/`EFAULT`.
///
/// ```swift
/// switch try Syscall.run("recv", { recv(fd, pointer, count, 0) }) {
/// case .done(let count): ...   // 0 is end of stream
/// case .wouldBlock: ...        // wait until the reactor reports the descriptor readable
/// }
/// ```
package enum Syscall {
    /// Runs `body`, a C call that returns -1 and sets `errno` on failure.
    @inline(__always)
    package static func run<Result: FixedWidthInteger & SignedInteger>(
        _ call: StaticString, _ body: () -> Result
    ) throws(SystemCallError) -> SyscallResult<Result> {
        while true {
            let result = body()
            if result >= 0 { return .done(result) }
            let code = Glibc.errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                return .wouldBlock
            case EBADF, EFAULT:
                preconditionFailure("\(call) failed with errno \(code): a descriptor or pointer bug in HTTPWire")
            default:
                throw SystemCallError(call: "\(call)", errno: code)
            }
        }
    }

    /// Runs a call that must not block (`socket`, `bind`, `epoll_ctl`): `EAGAIN` is reported as an error.
    @inline(__always)
    package static func runOnce<Result: FixedWidthInteger & SignedInteger>(
        _ call: StaticString, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        switch try run(call, body) {
        case .done(let value): return value
        case .wouldBlock: throw SystemCallError(call: "\(call)", errno: EAGAIN)
        }
    }

    /// `errno` as left by a library call that reports failure its own way (OpenSSL's SSL_ERROR_SYSCALL):
    /// read here so that this file stays the only reader of `errno`.
    package static func errnoAfterLibraryCall() -> Int32 { Glibc.errno }

    /// Closes a raw descriptor. Linux releases the descriptor even when `close` reports `EINTR`, so unlike
    /// every other call it is never retried: a retry could close a descriptor another thread just opened.
    package static func close(_ descriptor: Int32) {
        let result = Glibc.close(descriptor)
        if result == -1 && Glibc.errno == EBADF {
            preconditionFailure("close(\(descriptor)) failed with EBADF: a descriptor closed twice")
        }
    }
}

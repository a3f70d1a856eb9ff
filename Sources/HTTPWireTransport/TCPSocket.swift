// TCPSocket: a connected, non-blocking TCP socket, and how one is opened (transport layer).
//
// Connecting resolves the host, then races its addresses (IPv6 and IPv4 interleaved by the resolver; see
// `HappyEyeballs`) until one accepts; the error of the last attempt is reported with the host, which the
// CLI prints for exit code 7. Every socket is non-blocking, close-on-exec, and has TCP_NODELAY set: HTTPWire
// writes a whole request head in one call, so Nagle's algorithm would only delay the next request on a
// kept-alive connection behind the previous response's delayed ACK. Sends use MSG_NOSIGNAL, so a peer that
// has gone away is an EPIPE error rather than a SIGPIPE that kills the process.
//
// The same type carries a Unix-domain stream socket (unix(7), `connect(unixSocketPath:deadline:)`): a local
// server such as Docker's daemon speaks HTTP/1.1 on a socket file rather than a port. Reads, writes, sendfile
// and splice work on it unchanged; only TCP_NODELAY does not apply (there is no Nagle to turn off).
//
// Plain sockets also offer the zero-copy paths of later features: `sendFile` (file → socket with
// sendfile(2), for uploads) and `spliceToFile` (socket → file with splice(2) through a pipe, for downloads).
// A TLS connection cannot use them: its bytes must pass through OpenSSL in user space. This file knows no
// HTTP. `read` and `write` make their first attempt on the calling task's thread and go to the reactor only
// when the call would block (`Reactor.performAttemptingHere`); connect, sendfile and splice, which may touch
// the disk, run on the reactor thread.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A connected TCP socket (or a Unix-domain stream socket: see `connect(unixSocketPath:deadline:)`).
///
/// ```swift
/// let socket = try await TCPSocket.connect(host: "127.0.0.1", port: 8080, deadline: .after(.seconds(5)))
/// try await socket.write(Array("ping".utf8), deadline: .never)
/// ```
package final class TCPSocket: ByteStream, CustomStringConvertible {
    /// The socket's descriptor, closed by `close()` or by the reactor.
    package let descriptor: FileDescriptor
    /// The peer's address.
    package let remoteAddress: SocketAddress
    /// The pipe of the last `spliceToFile`, empty, kept for the next: a download splices a body in many
    /// calls, and creating a 1 MiB pipe (pipe2 and fcntl, ~120 µs each time) per call cost 7.5 ms of a
    /// 64 MiB segmented download on loopback (64 calls). Closed with the socket.
    private let idlePipe = LockedState<SplicePipe?>(nil)

    /// Wraps an already connected, non-blocking socket.
    package init(adopting descriptor: FileDescriptor, remoteAddress: SocketAddress) {
        self.descriptor = descriptor
        self.remoteAddress = remoteAddress
    }

    /// This end's address (getsockname(2)): the address and port the kernel chose for the connection (curl's
    /// `local_ip` and `local_port`); nil once the socket is closed. A Unix-domain client socket has no name.
    package func localAddress() -> SocketAddress? {
        descriptor.withNumberHeldOpen { number in SocketAddress.filled { getsockname(number, $0, $1) } }
            .flatMap { $0.result == 0 ? $0.address : nil }
    }

    deinit {
        // A forgotten socket is closed anyway, by the reactor, which may still be watching it.
        if descriptor.isOpen { Reactor.shared.closeEventually(descriptor) }
        takeIdlePipe()?.close()
    }

    /// Resolves `host` and connects to the first of its addresses that accepts, racing them as RFC 8305
    /// describes (`HappyEyeballs`). Throws `TransportError.couldNotResolve`,
    /// `couldNotConnect(host:port:errno:)` (with the last address's errno), `timedOut` and `CancellationError`.
    package static func connect(host: String, port: Int, deadline: Deadline) async throws -> TCPSocket {
        let addresses = try await Resolver.resolve(host: host, port: port, deadline: deadline)
        return try await connect(toAddresses: addresses, host: host, port: port, deadline: deadline)
    }

    /// Connects to the first of `host`'s resolved `addresses` that accepts (`Resolver.resolve` made them),
    /// racing them as RFC 8305 describes. For a caller that times the lookup and the connect apart. Throws
    /// like `connect(host:port:deadline:)`, without `couldNotResolve`.
    package static func connect(
        toAddresses addresses: [SocketAddress], host: String, port: Int, deadline: Deadline
    ) async throws -> TCPSocket {
        if addresses.count == 1 {
            // The common case (a literal, or a name with one address) needs no race and no task group.
            do {
                return try await connect(to: addresses[0], deadline: deadline)
            } catch let error as SystemCallError {
                throw TransportError.couldNotConnect(host: host, port: port, errno: error.errno)
            }
        }
        return try await HappyEyeballs.connect(to: addresses, host: host, port: port, deadline: deadline)
    }

    /// Connects to the Unix-domain socket at `path` (unix(7)): a local server listening on a socket file.
    /// Throws `TransportError.couldNotConnect(host: path, port: 0, errno:)` — ENOENT when there is no such
    /// file, ECONNREFUSED when nothing listens on it, EACCES without permission, ENAMETOOLONG for a path
    /// longer than `sun_path` holds — and `timedOut` and `CancellationError`.
    package static func connect(unixSocketPath path: String, deadline: Deadline) async throws -> TCPSocket {
        guard let address = SocketAddress(unixSocketPath: path) else {
            throw TransportError.couldNotConnect(host: path, port: 0, errno: ENAMETOOLONG)
        }
        do {
            return try await connect(to: address, deadline: deadline)
        } catch let error as SystemCallError {
            // A full backlog makes a non-blocking Unix-domain connect fail with EAGAIN (no EINPROGRESS here).
            throw TransportError.couldNotConnect(host: path, port: 0, errno: error.errno)
        }
    }

    /// Connects to one address. Throws `SystemCallError` when the address refuses (the caller tries the
    /// next one), `TransportError.timedOut` and `CancellationError`.
    package static func connect(to address: SocketAddress, deadline: Deadline) async throws -> TCPSocket {
        let descriptor = try openSocket(family: address.family)
        let number = descriptor.rawValue
        var isStarted = false
        do {
            let _: Void = try await Reactor.shared.perform(on: descriptor, deadline: deadline) {
                if !isStarted {
                    isStarted = true
                    do {
                        _ = try Syscall.runOnce("connect") {
                            address.withSocketAddress { Glibc.connect(number, $0, $1) }
                        }
                        return .finished(())
                    } catch let error as SystemCallError where error.errno == EINPROGRESS {
                        return .wait(.writable)  // the usual case: the handshake is under way
                    }
                }
                // Writable after EINPROGRESS: SO_ERROR says whether the handshake succeeded.
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = try Syscall.runOnce("getsockopt") { getsockopt(number, SOL_SOCKET, SO_ERROR, &code, &length) }
                if code == 0 { return .finished(()) }
                throw SystemCallError(call: "connect", errno: code)
            }
        } catch {
            await Reactor.shared.close(descriptor)
            throw error
        }
        return TCPSocket(adopting: descriptor, remoteAddress: address)
    }

    /// A new non-blocking, close-on-exec stream socket, with TCP_NODELAY for the internet families.
    static func openSocket(family: Int32) throws(SystemCallError) -> FileDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = FileDescriptor(adopting: try Syscall.runOnce("socket") { socket(family, type, 0) })
        if family != AF_UNIX { setNoDelay(descriptor.rawValue) }
        return descriptor
    }

    /// Turns off Nagle's algorithm (see the file comment); a failure only costs latency, so it is ignored.
    static func setNoDelay(_ number: Int32) {
        var on: Int32 = 1
        _ = setsockopt(number, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    package var isOpen: Bool { descriptor.isOpen }

    package func read(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline) async throws -> Int {
        try await read(into: &buffer, maxBytes: maxBytes, deadline: deadline, isAfterSending: false)
    }

    package func readAfterSending(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline) async throws
        -> Int
    {
        try await read(into: &buffer, maxBytes: maxBytes, deadline: deadline, isAfterSending: true)
    }

    /// One read: attempted at once (on the calling thread), or, right after a request went out, parked
    /// until the socket is readable (`Reactor.performAwaitingReadable`).
    private func read(into buffer: inout [UInt8], maxBytes: Int, deadline: Deadline, isAfterSending: Bool)
        async throws -> Int
    {
        let read = SocketRead(descriptor: descriptor, deadline: deadline, taking: &buffer, maxBytes: maxBytes)
        defer { buffer = read.takeBytes() }
        if isAfterSending {
            return try await Reactor.shared.performAwaitingReadable(read)
        }
        return try await Reactor.shared.performAttemptingHere(read)
    }

    /// Whether the connection on `number` ended with a reset rather than the peer's FIN, asked when a read
    /// returns 0. Linux reports a received RST (ECONNRESET) to the first call that meets it and an end of
    /// stream to every later one: when a write on another task met it first, this read would say "the
    /// server closed cleanly" about a connection the server reset. TCP_INFO still tells the two apart: a
    /// reset moves the socket straight to CLOSE, a FIN to CLOSE_WAIT (RFC 9293 §3.3.2). One getsockopt per
    /// end of stream, which a connection meets once.
    package static func wasReset(_ number: Int32) -> Bool {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        do {
            _ = try Syscall.runOnce("getsockopt") { getsockopt(number, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) }
        } catch {
            return false  // no answer: the end of stream stands as the read reported it
        }
        return Int32(info.tcpi_state) == Int32(TCP_CLOSE)
    }

    package func write(_ bytes: ArraySlice<UInt8>, deadline: Deadline) async throws {
        guard !bytes.isEmpty else { return }
        // The common case, a head or a body piece the socket buffer takes whole, completes here, before the
        // escaping closure of the reactor's path exists: that closure and the offset it shares cost two
        // allocations per write (docs/benchmarks.md, "Allocations per request").
        var sent = 0
        if !Task.isCancelled, !deadline.hasPassed {
            sent = try descriptor.withNumberHeldOpen { number in try Self.sendNow(bytes, on: number) } ?? 0
        }
        if sent < bytes.count { try await writeParking(bytes.dropFirst(sent), deadline: deadline) }
    }

    /// Sends as much of `bytes` as the socket takes now, without waiting; the count sent.
    private static func sendNow(_ bytes: ArraySlice<UInt8>, on number: Int32) throws -> Int {
        var offset = bytes.startIndex
        do {
            while offset < bytes.endIndex {
                let result = try bytes[offset...].withUnsafeBytes { unsent in
                    try Syscall.run("send") { send(number, unsent.baseAddress, unsent.count, Int32(MSG_NOSIGNAL)) }
                }
                switch result {
                case .done(let count): offset += count
                case .wouldBlock: return offset - bytes.startIndex
                }
            }
        } catch let error as SystemCallError {
            throw TransportError.sendFailed(errno: error.errno)
        }
        return bytes.count
    }

    /// The rest of a write the socket did not take at once: through the reactor, which waits for room.
    private func writeParking(_ bytes: ArraySlice<UInt8>, deadline: Deadline) async throws {
        let descriptor = self.descriptor
        var offset = bytes.startIndex
        let _: Void = try await Reactor.shared.performAttemptingHere(on: descriptor, deadline: deadline) {
            offset += try Self.sendNow(bytes[offset...], on: descriptor.rawValue)
            return offset < bytes.endIndex ? .wait(.writable) : .finished(())
        }
    }

    /// Sends `count` bytes of `file`, starting at `offset`, with sendfile(2): the bytes go from the page
    /// cache to the socket without a copy through HTTPWire. Returns how many were sent, fewer than `count`
    /// only when the file is shorter. The caller keeps `file` open until this returns.
    /// Throws `TransportError.sendFailed(errno:)`, `timedOut`, `CancellationError`.
    package func sendFile(_ file: DiskFile, offset: Int64, count: Int64, deadline: Deadline) async throws -> Int64 {
        let descriptor = self.descriptor
        let source = file.descriptor
        var position = off_t(offset)
        var sent: Int64 = 0
        return try await Reactor.shared.perform(on: descriptor, deadline: deadline) {
            do {
                while sent < count {
                    // sendfile moves at most 0x7ffff000 bytes per call on Linux.
                    let chunk = Int(min(count - sent, 0x7fff_f000))
                    switch try Syscall.run(
                        "sendfile", { sendfile(descriptor.rawValue, source.rawValue, &position, chunk) })
                    {
                    case .done(0): return .finished(sent)  // the file ended early
                    case .done(let moved): sent += Int64(moved)
                    case .wouldBlock: return .wait(.writable)
                    }
                }
                return .finished(sent)
            } catch let error as SystemCallError {
                throw TransportError.sendFailed(errno: error.errno)
            }
        }
    }

    /// Moves received bytes straight into `file` with splice(2) through a pipe, without copying them
    /// through HTTPWire: at most `maxBytes`, written at `offset` (at the file's position when nil, for a
    /// file that has none, such as /dev/null). Like `read`, it returns as soon as some
    /// bytes have moved and the socket has no more for now; 0 means end of stream. The caller keeps `file`
    /// open until this returns. Throws `TransportError.receiveFailed(errno:)`, `fileWriteFailed` (with the
    /// file's path), `timedOut`, `CancellationError`.
    package func spliceToFile(_ file: DiskFile, offset: Int64?, maxBytes: Int64, deadline: Deadline) async throws
        -> Int64
    {
        precondition(maxBytes > 0, "a splice of \(maxBytes) bytes")
        let pipe = try takeIdlePipe() ?? SplicePipe()
        let target = file.descriptor
        let path = file.path
        // Kept for the next call only when this one ended with the pipe empty (every successful return
        // drains it first); after a failure it may hold bytes, so it is closed.
        var isEmptyAtEnd = false
        defer {
            if isEmptyAtEnd, descriptor.isOpen {
                let spare = idlePipe.withLock { idle -> SplicePipe? in
                    if idle == nil {
                        idle = pipe
                        return nil
                    }
                    return pipe
                }
                spare?.close()
            } else {
                pipe.close()
            }
        }
        let descriptor = self.descriptor
        var position = off_t(offset ?? 0)
        var bytesInPipe = 0
        var moved: Int64 = 0
        let total = try await Reactor.shared.perform(on: descriptor, deadline: deadline) {
            while true {
                // Empty the pipe into the file first, so the pipe has room and no byte is left behind.
                while bytesInPipe > 0 {
                    let written: SyscallResult<Int>
                    do {
                        written = try Syscall.run("splice") {
                            if offset == nil {
                                return splice(
                                    pipe.readEnd.rawValue, nil, target.rawValue, nil, bytesInPipe,
                                    httpwire_SPLICE_F_MOVE)
                            }
                            return splice(
                                pipe.readEnd.rawValue, nil, target.rawValue, &position, bytesInPipe,
                                httpwire_SPLICE_F_MOVE)
                        }
                    } catch let error as SystemCallError {
                        throw TransportError.fileWriteFailed(call: "splice", path: path, errno: error.errno)
                    }
                    guard case .done(let count) = written, count > 0 else {
                        throw TransportError.fileWriteFailed(call: "splice", path: path, errno: EIO)
                    }
                    bytesInPipe -= count
                    moved += Int64(count)
                }
                if moved >= maxBytes { return .finished(moved) }
                let wanted = Int(min(maxBytes - moved, Int64(pipe.capacity)))
                let received: SyscallResult<Int>
                do {
                    received = try Syscall.run("splice") {
                        splice(
                            descriptor.rawValue, nil, pipe.writeEnd.rawValue, nil, wanted,
                            httpwire_SPLICE_F_MOVE | httpwire_SPLICE_F_NONBLOCK)
                    }
                } catch let error as SystemCallError {
                    throw TransportError.receiveFailed(errno: error.errno)
                }
                switch received {
                case .done(0): return .finished(moved)  // end of stream (moved is 0 unless bytes came first)
                case .done(let count): bytesInPipe = count
                case .wouldBlock: if moved > 0 { return .finished(moved) } else { return .wait(.readable) }
                }
            }
        }
        isEmptyAtEnd = bytesInPipe == 0
        return total
    }

    /// Drops up to `maxBytes` received bytes without copying them anywhere: recv(2) with MSG_TRUNC, which
    /// TCP treats as "discard the data" (tcp(7)). Returns how many were dropped, 0 at the end of the stream;
    /// returns as soon as some were dropped and the socket runs dry, waits only when nothing was there.
    package func discard(maxBytes: Int64, deadline: Deadline) async throws -> Int64 {
        precondition(maxBytes > 0, "a discard of \(maxBytes) bytes")
        let descriptor = self.descriptor
        var dropped: Int64 = 0
        return try await Reactor.shared.performAttemptingHere(on: descriptor, deadline: deadline) {
            while dropped < maxBytes {
                let wanted = Int(min(maxBytes - dropped, 16 << 20))
                let result: SyscallResult<Int>
                do {
                    result = try Syscall.run("recv") { recv(descriptor.rawValue, nil, wanted, Int32(MSG_TRUNC)) }
                } catch let error as SystemCallError {
                    throw TransportError.receiveFailed(errno: error.errno)
                }
                switch result {
                case .done(0): return .finished(dropped)  // end of stream (dropped is 0 unless bytes came first)
                case .done(let count): dropped += Int64(count)
                case .wouldBlock: if dropped > 0 { return .finished(dropped) } else { return .wait(.readable) }
                }
            }
            return .finished(dropped)
        }
    }

    package func close() async {
        takeIdlePipe()?.close()
        await Reactor.shared.close(descriptor)
    }

    /// The kept pipe, if any, now owned by the caller.
    private func takeIdlePipe() -> SplicePipe? {
        idlePipe.withLock { pipe in
            defer { pipe = nil }
            return pipe
        }
    }

    /// `"tcp 127.0.0.1:8080 (fd 7)"`.
    package var description: String { "tcp \(remoteAddress) (\(descriptor))" }
}

/// The pipe splice(2) needs between a socket and a file (splice moves data only to or from a pipe).
/// Neither end is watched by the reactor, so both are closed directly when the splice ends.
private struct SplicePipe: Sendable {
    let readEnd: FileDescriptor
    let writeEnd: FileDescriptor
    /// How many bytes the pipe holds: 1 MiB when the kernel allows it, else its 64 KiB default.
    let capacity: Int

    init() throws(TransportError) {
        var ends: [Int32] = [0, 0]
        do throws(SystemCallError) {
            _ = try Syscall.runOnce("pipe2") { pipe2(&ends, Int32(O_CLOEXEC | O_NONBLOCK)) }
        } catch {
            throw TransportError.receiveFailed(errno: error.errno)
        }
        readEnd = FileDescriptor(adopting: ends[0])
        writeEnd = FileDescriptor(adopting: ends[1])
        // A larger pipe means fewer splice calls per megabyte; the default (64 KiB) still works.
        let size = fcntl(ends[1], httpwire_F_SETPIPE_SZ, Int32(1 << 20))
        capacity = size > 0 ? Int(size) : 65536
    }

    func close() {
        readEnd.close()
        writeEnd.close()
    }
}

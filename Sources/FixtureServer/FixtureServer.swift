// FixtureServer: the in-process HTTP/1.1 server of the tests, `wire serve` and `wire demo` (edge layer).
//
// It listens on 127.0.0.1 with a port the kernel chooses, accepts connections with HTTPWire's own
// `Listener`, optionally runs the TLS handshake with `TLSStream`, and gives every connection a Swift task
// running `FixtureConnection`'s keep-alive loop. Those tasks run on the ServerExecutor's own threads and
// every wait ends on the reactor, so the server answers however busy Swift's cooperative pool is (the tests
// of a parallel run share it). The routes (Routes.swift) make every failure a client can meet reproducible.
// This file holds the public face: start and stop, the counters and request log tests read, and the
// in-memory files tests swap under a running server. It must not parse HTTP (the codec does) nor touch a
// socket directly (the transport does).

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

/// An HTTP/1.1 server on a loopback port, for tests and demos.
///
/// ```swift
/// try await withFixtureServer { server in
///     let socket = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: .never)
///     // send "GET /json HTTP/1.1" and read the reply ...
///     #expect(server.requestsServed == 1)
/// }
/// ```
///
/// Stop it with `stop()` (or use `withFixtureServer`, which always does): the listener and every open
/// connection are closed and their tasks awaited.
public final class FixtureServer: Sendable {
    /// Mutable state shared by the accept loop, the connection tasks and the test. Guarded by `state`.
    struct State: ~Copyable {
        var acceptedConnections = 0
        var requestsServed = 0
        var requestLog: [RequestHead] = []
        /// Open connections by id, so that `stop()` can close them.
        var connections: [Int: any ByteStream] = [:]
        /// The tasks running those connections, so that `stop()` can await them.
        var connectionTasks: [Int: Task<Void, Never>] = [:]
        var nextConnectionID = 0
        /// Files set by `setFile`, by name (the path after `/files/`); they shadow the directory.
        var files: [String: FixtureFile] = [:]
        var isStopped = false
        /// Set by `releaseHeldBodies()`: `/bytes?hold_at=` bodies go on past their hold.
        var heldBodiesReleased = false
    }

    /// The request log keeps the most recent heads only, so a benchmark of a million requests stays small.
    static let requestLogLimit = 10_000

    let listener: Listener
    let tlsContext: TLSContext?
    /// The directory served under `/files/`, if any.
    let directory: String?
    let log: (@Sendable (String) -> Void)?
    let state = LockedState(State())
    /// Routes added by the server's user, asked before the built-in ones (CustomRoutes.swift).
    let customRoutes = LockedState<[FixtureCustomRoute]>([])
    /// The accept loop; set once right after start, read by `stop()`.
    private let acceptTask = LockedState<Task<Void, Never>?>(nil)

    private init(listener: Listener, tlsContext: TLSContext?, directory: String?, log: (@Sendable (String) -> Void)?) {
        self.listener = listener
        self.tlsContext = tlsContext
        self.directory = directory
        self.log = log
    }

    /// Starts a server listening on `host:port` (port 0: a free port the kernel picks; read it from `port`).
    ///
    /// - Parameters:
    ///   - tls: when given, every connection starts with a TLS handshake presenting this certificate.
    ///   - directory: a directory served read-only under `/files/`, with Range, ETag and If-Range.
    ///   - log: called with one line per request and per connection problem (for `wire serve`).
    ///   - unixSocketPath: when given, the server listens on a new Unix-domain socket file at this path instead
    ///     of `host:port` (removed by `stop()`); clients reach it with `ClientConfiguration.unixSocketPath`.
    /// - Throws: `HTTPWireError.tlsHandshakeFailed` when the certificate or key cannot be loaded, and the
    ///   transport's error when the address cannot be bound.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSServerConfiguration? = nil, directory: String? = nil,
        unixSocketPath: String? = nil, log: (@Sendable (String) -> Void)? = nil
    ) async throws -> FixtureServer {
        let context = try tls.map { configuration throws(HTTPWireError) in
            do throws(TransportError) {
                return try TLSContext(server: configuration.transportSettings)
            } catch {
                throw HTTPWireError(error, phase: .connect)
            }
        }
        let listener =
            try unixSocketPath.map { try Listener.bind(unixSocketPath: $0) } ?? Listener.bind(host: host, port: port)
        let server = FixtureServer(listener: listener, tlsContext: context, directory: directory, log: log)
        let task = Task(executorPreference: ServerExecutor.shared) { await server.acceptLoop() }
        server.acceptTask.withLock { $0 = task }
        return server
    }

    /// The port the server listens on.
    public var port: Int { listener.port }

    /// Whether connections start with TLS.
    public var isTLS: Bool { tlsContext != nil }

    /// `http://127.0.0.1:PORT/` (or `https://…`), ready for `TargetURL(server.baseURL + "json")`;
    /// `http://localhost/` on a Unix-domain socket, whose requests still need a URL (and so a host).
    public var baseURL: String {
        if listener.localAddress.isUnixDomain { return "\(isTLS ? "https" : "http")://localhost/" }
        let host = listener.localAddress.isIPv6 ? "[\(listener.localAddress.host)]" : listener.localAddress.host
        return "\(isTLS ? "https" : "http")://\(host):\(port)/"
    }

    /// Every route as `(usage, summary)`, in the order `GET /` lists them: `("/bytes/{n}?seed=0…", "n
    /// deterministic bytes…")`. For `wire serve` and `wire demo` to print.
    public static var routes: [(usage: String, summary: String)] {
        Routes.table.map { ($0.usage, $0.summary) }
    }

    /// Connections accepted so far (including ones that failed their TLS handshake).
    public var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }

    /// Requests whose head was received so far, whatever the route then did with them.
    public var requestsServed: Int { state.withLock { $0.requestsServed } }

    /// The heads of received requests, oldest first (the last 10 000), exactly as decoded: tests check the
    /// `Range`, `If-Range` or `Expect` fields a client sent.
    public var requestLog: [RequestHead] { state.withLock { $0.requestLog } }

    /// Serves `contents` at `/files/NAME`, replacing any earlier file of that name and shadowing the
    /// directory. The validators change with the content: by default the ETag is derived from the bytes'
    /// SHA-256 and Last-Modified is now, so a test that changes a file mid-download sees a new ETag, as a
    /// real server would show. Pass `etag` (with its quotes, `"v2"`, or `W/"v2"` for a weak one) or
    /// `lastModified` (an IMF-fixdate) to control them.
    public func setFile(_ name: String, contents: [UInt8], etag: String? = nil, lastModified: String? = nil) {
        let file = FixtureFile(contents: contents, etag: etag, lastModified: lastModified)
        state.withLock { $0.files[name] = file }
    }

    /// Lets every `/bytes/{n}?interval_ms=…&hold_at=K` body go on past byte K, now and for the rest of the
    /// server's life. Until then such a body stops just before byte K: a test that must act while a
    /// download is part-way (kill it, start a second one beside it) waits for the bytes before K and then
    /// has all the time it needs, where a paced body alone could end while a loaded machine kept the test
    /// from looking.
    public func releaseHeldBodies() {
        state.withLock { $0.heldBodiesReleased = true }
    }

    /// Returns once ``releaseHeldBodies()`` has been called, looking every `interval` on the server's clock.
    func waitForHeldBodies(polling interval: Duration) async throws {
        while !state.withLock({ $0.heldBodiesReleased }) {
            try await ServerExecutor.sleep(for: interval)
        }
    }

    /// Stops serving a file set with `setFile` (the directory's file of that name, if any, shows again).
    public func removeFile(_ name: String) {
        _ = state.withLock { $0.files.removeValue(forKey: name) }
    }

    /// Closes every open connection from the server's side, as a server does that restarts or times idle
    /// connections out, and goes on listening: a client's next request needs a new connection. Returns once
    /// the connections are closed and their tasks have ended.
    public func closeConnections() async {
        let (connections, tasks) = state.withLock { state in
            (Array(state.connections.values), Array(state.connectionTasks.values))
        }
        for connection in connections { await connection.close() }
        for task in tasks {
            task.cancel()
            await task.value
        }
    }

    /// Closes the listener and every connection, and waits for their tasks to finish. Calling it again
    /// does nothing.
    public func stop() async {
        let wasStopped = state.withLock { state in
            defer { state.isStopped = true }
            return state.isStopped
        }
        if wasStopped { return }
        await listener.close()
        // Once the accept loop has ended no connection can be added; then close and await them all.
        await acceptTask.withLock { $0 }?.value
        let (connections, tasks) = state.withLock { state in
            (Array(state.connections.values), Array(state.connectionTasks.values))
        }
        for connection in connections { await connection.close() }
        for task in tasks {
            task.cancel()
            await task.value
        }
    }

    // MARK: Accepting

    /// Accepts connections until the listener is closed, starting one task per connection.
    private func acceptLoop() async {
        while true {
            let socket: TCPSocket
            do {
                socket = try await listener.accept()
            } catch {
                if error is CancellationError || state.withLock({ $0.isStopped }) { return }
                // Out of descriptors (EMFILE) or a connection aborted before accept: wait a little, go on.
                log?("accept failed: \(error)")
                try? await ServerExecutor.sleep(for: .milliseconds(10))
                continue
            }
            let id: Int? = state.withLock { state in
                guard !state.isStopped else { return nil }
                state.acceptedConnections += 1
                state.nextConnectionID += 1
                state.connections[state.nextConnectionID] = socket
                return state.nextConnectionID
            }
            guard let id else {
                await socket.close()
                return
            }
            // An unstructured task does not inherit the executor preference: it is given again.
            let task = Task(executorPreference: ServerExecutor.shared) { await self.serve(socket, id: id) }
            state.withLock { state in
                // The task may have finished already; only remember it while its connection is registered.
                if state.connections[id] != nil { state.connectionTasks[id] = task }
            }
        }
    }

    /// Runs the TLS handshake when configured, then the connection's request loop.
    private func serve(_ socket: TCPSocket, id: Int) async {
        defer {
            state.withLock { state in
                state.connections.removeValue(forKey: id)
                state.connectionTasks.removeValue(forKey: id)
            }
        }
        var connection: any ByteStream = socket
        if let tlsContext {
            do {
                let stream = try await TLSStream.accept(
                    over: socket, context: tlsContext, deadline: .after(.seconds(10)))
                let isStopped = state.withLock { state in
                    if !state.isStopped { state.connections[id] = stream }
                    return state.isStopped
                }
                if isStopped {
                    await stream.close()
                    return
                }
                connection = stream
            } catch {
                log?("\(socket.remoteAddress): tls handshake failed: \(error)")
                return
            }
        }
        let loop = FixtureConnection(connection: connection, server: self, peer: "\(socket.remoteAddress)")
        await loop.run()
    }

    /// Counts a received request and logs its head; called by the connection loop.
    func recordRequest(_ head: RequestHead) {
        state.withLock { state in
            state.requestsServed += 1
            if state.requestLog.count >= Self.requestLogLimit { state.requestLog.removeFirst() }
            state.requestLog.append(head)
        }
    }

    /// The file set with `setFile` under `name`, if any.
    func file(named name: String) -> FixtureFile? {
        state.withLock { $0.files[name] }
    }
}

/// Starts a `FixtureServer`, runs `body` with it, and stops the server whether `body` returns or throws.
/// `body` runs on the caller's actor (`isolation`), so a `@MainActor` test can use it as well.
///
/// ```swift
/// let status = try await withFixtureServer { server in try await fetchStatus(server.baseURL + "status/418") }
/// ```
public func withFixtureServer<T>(
    tls: TLSServerConfiguration? = nil, directory: String? = nil, isolation: isolated (any Actor)? = #isolation,
    _ body: (FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start(tls: tls, directory: directory)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

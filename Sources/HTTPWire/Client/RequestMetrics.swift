// RequestMetrics: where the time of one request went — DNS, connect, TLS, request sent, first byte,
// complete — and whether its connection was reused (client layer).
//
// Like curl's `-w` variables (`time_namelookup`, `time_connect`, `time_appconnect`, `time_pretransfer`,
// `time_starttransfer`, `time_total`) and unlike URLSessionTaskMetrics' dates, each time is a duration from
// the start of the call (`send`, `stream`) to the event, so they add up along the way and redirects and
// retries are inside them. Every event is one reading of the monotonic clock (CLOCK_MONOTONIC, the clock
// of every deadline), taken where it happens: the pool's connection opening for DNS, connect and TLS, the
// exchange for the rest. Plain values; nothing here reads a clock.

/// The timings of one request, from the moment the call started.
///
/// ```swift
/// let response = try await client.get("https://example.test/")
/// let metrics = response.metrics
/// print(metrics.firstByte ?? .zero, metrics.isReusedConnection)   // 0.0123 seconds, false
/// ```
///
/// The connection times (`nameLookup`, `connect`, `tlsHandshake`) are those of the connection that carried
/// the final response, and nil when it was reused (nothing was looked up or connected for this request);
/// a connection opened before this call started (for another request) reports zero.
public struct RequestMetrics: Sendable, Hashable {
    /// Name resolution done (curl's `time_namelookup`). An IP literal takes almost no time.
    public var nameLookup: Duration?
    /// TCP connection established (`time_connect`).
    public var connect: Duration?
    /// TLS handshake done (`time_appconnect`); nil for plain HTTP.
    public var tlsHandshake: Duration?
    /// The last byte of the request written (head and body); nil when the body was never sent whole (a
    /// server that answered early).
    public var requestSent: Duration?
    /// The first byte of the final response received (`time_starttransfer`).
    public var firstByte: Duration?
    /// The body read to its end (`time_total`); nil while a streamed body is still being read.
    public var complete: Duration?
    /// Whether the final response came over a connection an earlier request used.
    public var isReusedConnection: Bool
    /// Connections this call opened, over redirects and retries (`num_connects`).
    public var connectionsOpened: Int
    /// Redirects followed (`num_redirects`).
    public var redirects: Int
    /// Attempts sent again by the retry policy or a middleware.
    public var retries: Int
    /// Body bytes of the final response received so far (`size_download`), before any content decoding.
    public var receivedBodyBytes: Int64
    /// The address the final response came from (curl's `remote_ip`): the IPv4 or IPv6 address the
    /// connection is connected to — which of a name's addresses won the race (RFC 8305), or the proxy's
    /// through a proxy — or the socket file's path through ``ClientConfiguration/unixSocketPath``. Nil when
    /// no connection carried a response (metrics made by hand).
    public var remoteAddress: String?
    /// That connection's port on the peer (`remote_port`); nil through a Unix-domain socket.
    public var remotePort: Int?
    /// This end of that connection (curl's `local_ip`): the source address the kernel chose for it, which
    /// tells which interface the request left by. Nil through a Unix-domain socket, or with no connection.
    public var localAddress: String?
    /// This end's port (`local_port`): the ephemeral port, which a packet capture or a server log shows.
    public var localPort: Int?

    /// Metrics with every time unknown and every count zero.
    public init(
        nameLookup: Duration? = nil, connect: Duration? = nil, tlsHandshake: Duration? = nil,
        requestSent: Duration? = nil, firstByte: Duration? = nil, complete: Duration? = nil,
        isReusedConnection: Bool = false, connectionsOpened: Int = 0, redirects: Int = 0, retries: Int = 0,
        receivedBodyBytes: Int64 = 0, remoteAddress: String? = nil, remotePort: Int? = nil,
        localAddress: String? = nil, localPort: Int? = nil
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.requestSent = requestSent
        self.firstByte = firstByte
        self.complete = complete
        self.isReusedConnection = isReusedConnection
        self.connectionsOpened = connectionsOpened
        self.redirects = redirects
        self.retries = retries
        self.receivedBodyBytes = receivedBodyBytes
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localAddress = localAddress
        self.localPort = localPort
    }

    /// The average body speed over the whole request, in bytes per second (`speed_download`); nil until
    /// the request is complete.
    public var bytesPerSecond: Double? {
        guard let complete else { return nil }
        let seconds = Double(complete.components.seconds) + Double(complete.components.attoseconds) * 1e-18
        return seconds > 0 ? Double(receivedBodyBytes) / seconds : nil
    }
}

/// The counters of one call, kept by the client while it follows redirects and retries; the times are
/// added when the metrics are read, from the final exchange and its connection.
struct MetricsCounters: Sendable {
    /// CLOCK_MONOTONIC at the start of the call.
    let startNanoseconds: UInt64
    var connectionsOpened = 0
    var redirects = 0
    var retries = 0

    /// The duration from the start of the call to `nanoseconds` (zero for an event before it), or nil.
    func offset(_ nanoseconds: UInt64?) -> Duration? {
        guard let nanoseconds, nanoseconds != 0 else { return nil }
        return .nanoseconds(Int64(nanoseconds > startNanoseconds ? nanoseconds - startNanoseconds : 0))
    }
}

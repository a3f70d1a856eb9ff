// Exchange+Metrics: the clock readings of one exchange and its connection, as the `RequestMetrics` of the
// call it ended (exchange layer).
//
// The exchange reads the monotonic clock once per event it sees — head written, body written, first
// response byte, end of body — and the pool read it once per step of opening the connection. This file only
// subtracts the call's start from them; it reads no clock and waits for nothing.

extension Exchange {
    /// The metrics of the call whose final exchange this is, with the call's `counters`.
    func metrics(_ counters: MetricsCounters) -> RequestMetrics {
        var metrics = RequestMetrics(
            isReusedConnection: lease.isReused, connectionsOpened: counters.connectionsOpened,
            redirects: counters.redirects, retries: counters.retries, receivedBodyBytes: receivedBytes,
            remoteAddress: connection.remoteAddress, remotePort: connection.remotePort,
            localAddress: connection.localAddress, localPort: connection.localPort)
        if !lease.isReused {
            let timings = connection.timings
            metrics.nameLookup = counters.offset(timings.resolvedNanoseconds)
            metrics.connect = counters.offset(timings.connectedNanoseconds)
            metrics.tlsHandshake = counters.offset(timings.tlsNanoseconds)
        }
        let sent = hasWriter ? shared.withLock { $0.bodySentNanoseconds } : headSentNanoseconds
        metrics.requestSent = counters.offset(sent)
        metrics.firstByte = counters.offset(firstByteNanoseconds)
        metrics.complete = counters.offset(endNanoseconds)
        return metrics
    }
}

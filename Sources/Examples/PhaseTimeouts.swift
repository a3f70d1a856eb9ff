// PhaseTimeouts: each phase of a request has its own deadline, and an expiry names the phase that was
// waiting (example: the public API only). Here the server takes longer to answer than the idle timeout
// allows, so the request fails with timedOut(.head), curl's exit 28. `perRequest` sets a shorter total
// for one request only (the classic "longer timeout for uploads" is the same option the other way round).

import HTTPWire

/// Example: timeouts per phase, and the error an expired one throws.
package enum PhaseTimeouts {
    /// `RunExample timeouts "http://127.0.0.1:8080/delay?ms=3000"`: waits at most `idle` for the head.
    /// Returns the phase that timed out, or nil when the answer came in time.
    package static func run(
        url: String, idle: Duration = .milliseconds(500), configuration: ClientConfiguration = ClientConfiguration(),
        log: (String) -> Void = { print($0) }
    ) async throws -> HTTPWireError.Phase? {
        var configuration = configuration
        configuration.timeouts.connect = .seconds(5)  // DNS, TCP and the TLS handshake
        configuration.timeouts.idle = idle  // the longest wait for any byte once connected
        configuration.timeouts.total = .seconds(60)  // the whole request, redirects included
        let client = HTTPClient(configuration: configuration)
        let expired: HTTPWireError.Phase?
        do {
            let response = try await client.get(url)
            log("answered in time: \(response.status.rawValue)")
            expired = nil
        } catch HTTPWireError.timedOut(let phase) {
            log("timed out waiting for the \(phase.rawValue) (exit \(HTTPWireError.timedOut(phase).exitCode))")
            expired = phase
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        return expired
    }

    /// `RunExample timeouts-per-request "http://127.0.0.1:8080/delay?ms=3000"`: one request with its own total
    /// deadline, shorter than the client's; the client's other requests keep theirs. Returns the phase that
    /// timed out (`.total` when the per-request deadline struck), or nil when the answer came in time.
    package static func perRequest(
        url: String, total: Duration = .milliseconds(500), configuration: ClientConfiguration = ClientConfiguration(),
        log: (String) -> Void = { print($0) }
    ) async throws -> HTTPWireError.Phase? {
        let client = HTTPClient(configuration: configuration)  // its own timeouts are the defaults
        let expired: HTTPWireError.Phase?
        do {
            let response = try await client.get(url, options: RequestOptions(timeout: total))
            log("answered within \(total): \(response.status.rawValue)")
            expired = nil
        } catch HTTPWireError.timedOut(let phase) {
            log(
                "this request's own \(total) ran out (\(phase.rawValue), exit \(HTTPWireError.timedOut(phase).exitCode))"
            )
            expired = phase
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        return expired
    }
}

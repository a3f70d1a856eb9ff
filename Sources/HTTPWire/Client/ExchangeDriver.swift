// ExchangeDriver: one request sent and its response head read, on one leased connection (client layer).
//
// The driver writes the head (and a small body in the same write), starts a writer task for a larger body,
// and reads until the final response head, reporting every fact to the ExchangeStateMachine through
// ExchangeControl. The machine decides retries and the connection's fate; the driver turns transport and
// codec failures into HTTPWireError. The body is read afterwards by ResponseBodyReader. It never parses
// bytes itself and never decides policy (redirects are the client's).

import HTTPWireCodec

/// Thrown inside the client when the machine says the request must be sent again on a new connection.
struct RetryOnNewConnection: Error {
    let cause: HTTPWireError
}

/// Deadlines for one request: each wait gets "now + idle timeout", never past the total deadline.
struct RequestDeadlines: Sendable {
    let idle: Duration
    let total: Deadline

    /// The deadline for a wait in `phase`.
    func forPhase(_ phase: HTTPWireError.Phase) -> Deadline {
        Swift.min(Deadline.after(idle, phase: phase), total)
    }
}

/// Runs the sending half of an exchange and reads the head.
struct ExchangeDriver {
    let request: ResolvedRequest
    let body: PreparedBody
    let control: ExchangeControl
    let deadlines: RequestDeadlines
    let continueTimeout: Duration
    let logger: (@Sendable (HTTPLogEvent) -> Void)?

    private var connection: PooledConnection { control.lease.connection }

    /// Sends the request and returns the final response head and the 1xx heads before it. Throws
    /// `RetryOnNewConnection` when the request may and must be retried, or the exchange's error.
    func run() async throws -> (head: ResponseHead, interim: [ResponseHead], writer: Task<Void, Never>?) {
        connection.decoder.expectResponse(to: request.method)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        // RFC 9112 §3.2: Host first, from the URL being requested (it changes with a redirect).
        var fields: HTTPFields = ["Host": request.url.hostFieldValue]
        for field in request.fields { fields.append(field) }
        let head = RequestHead(method: request.method, target: request.url.pathAndQuery, fields: fields)
        try RequestEncoder.encodeHead(head, framing: body.framing, into: &bytes)
        logger?(
            HTTPLogEvent(
                kind: .requestHead,
                text: HTTPLogEvent.render(
                    startLine: "\(request.method) \(request.url.pathAndQuery) HTTP/1.1",
                    fields: Self.wireFields(fields, framing: body.framing))))
        let inline = request.expectContinue ? nil : body.smallInlineBytes
        if let inline { bytes.append(contentsOf: inline) }

        control.handle { $0.start() }
        do {
            try await connection.stream.write(bytes[...], deadline: deadlines.forPhase(.send))
        } catch {
            throw failure(error, responseBytes: 0)
        }
        var writer: Task<Void, Never>?
        switch control.handle({ $0.headSent() }) {
        case .sendBody:
            if let inline {
                reportProgress(sent: Int64(inline.count))
                control.handle { $0.bodyChunkSent() }
                control.handle { $0.bodyFinished() }
            } else {
                writer = startWriter(waitingForContinue: false)
            }
        case .scheduleContinueTimeout:
            writer = startWriter(waitingForContinue: true)
            let control = self.control
            let timeout = continueTimeout
            Task {
                try? await Task.sleep(for: timeout)
                if case .sendBody = control.handle({ $0.continueTimeoutFired() }) {
                    control.openGate(sendingBody: true)
                }
            }
        case .wait, .sendHead, .stopSendingBody, .returnToPool, .closeConnection, .retry, .fail, .failCancelled:
            break
        }
        // While a writer sends the body, the head may legitimately take longer than the idle timeout (a
        // slow server reading a large upload answers at the end): the writes carry the idle deadlines then,
        // and a watchdog starts the head's idle timeout once the last body byte is sent.
        let watchdog = writer.map { _ in startHeadWatchdog() }
        defer { watchdog?.cancel() }
        do {
            let (head, interim) = try await readHead(whileSending: writer != nil)
            return (head, interim, writer)
        } catch {
            writer?.cancel()
            throw error
        }
    }

    /// Fails the exchange with `timedOut(.head)` when no head arrives within the idle timeout after the body
    /// was sent; cancelled by `run` as soon as the head arrives or the exchange fails.
    private func startHeadWatchdog() -> Task<Void, Never> {
        let control = self.control
        let idle = deadlines.idle
        let idleNanoseconds =
            UInt64(clamping: idle.components.seconds) * 1_000_000_000
            + UInt64(clamping: idle.components.attoseconds / 1_000_000_000)
        return Task {
            while !Task.isCancelled {
                let wait: Duration
                switch control.headWait {
                case .over:
                    return
                case .sending:
                    wait = idle
                case .waitingSince(let elapsed):
                    guard elapsed < idleNanoseconds else {
                        control.headTimedOut()
                        return
                    }
                    wait = .nanoseconds(Int64(clamping: idleNanoseconds - elapsed))
                }
                try? await Task.sleep(for: wait)
            }
        }
    }

    /// Reads until the final head, reporting 1xx responses to the machine (a 100 opens the body's gate).
    /// `whileSending`: a writer task is sending the body, so only the total deadline bounds these reads.
    private func readHead(whileSending: Bool) async throws -> (ResponseHead, [ResponseHead]) {
        var interim: [ResponseHead] = []
        var received = 0
        while true {
            let event: ResponseEvent
            do {
                event = try connection.decoder.nextEvent()
            } catch {
                throw failure(error, responseBytes: received)
            }
            switch event {
            case .informational(let head):
                log(head)
                interim.append(head)
                if case .sendBody = control.handle({ $0.informationalReceived(status: head.status.rawValue) }) {
                    control.openGate(sendingBody: true)
                }
            case .head(let head):
                log(head)
                // The verdict matters only while a writer still sends the body (an early 2xx); otherwise the
                // decoder's own, already computed, saves splitting the Connection field again per response.
                let keepAlive = whileSending ? Self.headAllowsKeepAlive(head) : connection.decoder.isKeepAlive
                let action = control.handle {
                    $0.responseHeadReceived(status: head.status.rawValue, isKeepAlive: keepAlive)
                }
                if case .fail(let error) = action { throw error }
                control.headReceived()
                // A final answer before the body was released from 100-continue: the body is not sent.
                control.openGate(sendingBody: false)
                return (head, interim)
            case .needMoreData:
                do {
                    let deadline = whileSending ? deadlines.total : deadlines.forPhase(.head)
                    received += try await connection.receive(deadline: deadline)
                } catch {
                    throw failure(error, responseBytes: received)
                }
            case .body, .end, .paused:
                preconditionFailure("decoder event \(event) before a response head")
            }
        }
    }

    /// Turns a failure while sending or waiting for the head into what the caller sees, asking the machine
    /// whether the request is retried.
    private func failure(_ error: any Error, responseBytes: Int) -> any Error {
        if Task.isCancelled || (error is CancellationError && control.writerError == nil) {
            control.handle { $0.cancelled() }
            return CancellationError()
        }
        var cause: HTTPWireError
        switch error {
        case let codec as CodecError:
            if case .truncatedHead(0) = codec {
                cause = .emptyReply
            } else {
                cause = .malformedResponse(codec)
            }
        case let wire as HTTPWireError:
            cause = wire
        default:
            cause = .receiveFailed(errno: 0)
        }
        // The writer's error explains a closed connection better than the read that noticed it.
        if let writerError = control.writerError {
            if let wire = writerError as? HTTPWireError {
                if case .sendFailed = wire, case .malformedResponse = cause {
                } else {
                    cause = wire
                }
            } else {
                control.handle { $0.cancelled() }
                return writerError
            }
        }
        let noResponseByte = responseBytes == 0
        let action: ExchangeStateMachine.Action
        if case .emptyReply = cause {
            action = control.handle { $0.peerClosedBeforeResponse() }
        } else {
            action = control.handle { $0.connectionFailed(cause, beforeAnyResponseByte: noResponseByte) }
        }
        switch action {
        case .retry: return RetryOnNewConnection(cause: cause)
        case .fail(let reported): return reported
        case .failCancelled: return CancellationError()
        case .sendHead, .sendBody, .scheduleContinueTimeout, .stopSendingBody, .wait, .returnToPool,
            .closeConnection:
            return cause
        }
    }

    /// Starts the task that sends a body too large to go with the head.
    private func startWriter(waitingForContinue: Bool) -> Task<Void, Never> {
        let control = self.control
        let body = self.body
        let deadlines = self.deadlines
        let progress = request.uploadProgress
        let total = body.totalBytes
        return Task {
            if waitingForContinue, await !control.waitForGate() { return }
            var writer = RequestBodyWriter(connection: control.lease.connection) { deadlines.forPhase(.send) }
            do {
                let complete = try await writer.send(body) { sent in
                    progress?(TransferProgress(receivedBytes: sent, expectedBytes: total))
                    if case .sendBody = control.handle({ $0.bodyChunkSent() }) { return true }
                    return false
                }
                if complete {
                    control.bodySent()
                    control.handle { $0.bodyFinished() }
                }
            } catch {
                control.writerFailed(error)
            }
        }
    }

    private func reportProgress(sent: Int64) {
        request.uploadProgress?(TransferProgress(receivedBytes: sent, expectedBytes: body.totalBytes))
    }

    private func log(_ head: ResponseHead) {
        guard let logger else { return }
        let startLine = "\(head.version) \(head.status.rawValue) \(head.reason)"
        logger(HTTPLogEvent(kind: .responseHead, text: HTTPLogEvent.render(startLine: startLine, fields: head.fields)))
    }

    /// RFC 9112 §9.3: HTTP/1.1 persists unless `Connection: close`; HTTP/1.0 only with `keep-alive`.
    static func headAllowsKeepAlive(_ head: ResponseHead) -> Bool {
        let tokens = head.fields.tokens(for: "Connection")
        if head.version == .http1_0 { return tokens.contains("keep-alive") }
        return !tokens.contains("close")
    }

    /// The fields as they go on the wire, framing included, for the log.
    static func wireFields(_ fields: HTTPFields, framing: RequestBodyFraming) -> HTTPFields {
        var all = fields
        switch framing {
        case .none: break
        case .contentLength(let length): all.append(name: "Content-Length", value: String(length))
        case .chunked: all.append(name: "Transfer-Encoding", value: "chunked")
        }
        return all
    }
}

extension PooledConnection {
    /// Reads what the stream has (up to 256 KiB) and feeds it to the decoder; an end of stream is fed as an
    /// empty slice. Returns the number of bytes read.
    func receive(deadline: Deadline) async throws -> Int {
        receiveBuffer.removeAll(keepingCapacity: true)
        let count = try await stream.read(into: &receiveBuffer, maxBytes: ConnectionReadSize.body, deadline: deadline)
        decoder.feed(count == 0 ? [] : receiveBuffer[...])
        return count
    }
}

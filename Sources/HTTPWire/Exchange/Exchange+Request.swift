// Exchange+Request: writing the request and reading up to the final response head (exchange layer).
//
// The head is encoded by the codec and written in one call, with a small body in the same write (one system
// call, one TCP segment for a typical JSON request). A larger body goes to the writer task
// (`Exchange+Body.swift`), which waits for the machine's go-ahead: at once, or after `100 Continue` or the
// continue timer. Meanwhile this task reads interim responses and the final head. While a writer still sends,
// only the total deadline bounds those reads — a server reading a large upload may answer only at its end —
// and a timer started when the body is complete applies the idle timeout to the head from then on.

import HTTPWireCodec
import HTTPWireTransport

extension Exchange {
    /// Sends the request and returns the final response head and the 1xx heads before it. Throws
    /// `ResendOnNewConnection` when the request may and must be sent again on a new connection, else the
    /// exchange's error (`HTTPWireError`, `CancellationError`).
    func run() async throws -> (head: ResponseHead, interim: [ResponseHead]) {
        decoder.expectResponse(to: request.method)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        // RFC 9112 §3.2: Host first, from the URL being requested (it changes with a redirect).
        var fields = HTTPFields()
        fields.reserveCapacity(request.fields.count + 2)  // one allocation: Host, the fields, a proxy's
        fields.append(name: "Host", value: request.url.hostFieldValue)
        for field in request.fields { fields.append(field) }
        // RFC 9112 §3.2.2: to a proxy that forwards the request, the target is the absolute URL, and its
        // credentials (RFC 9110 §11.7.2) go with it; the proxy removes them before passing the request on.
        if let authorization = connection.proxyAuthorization, !fields.contains("Proxy-Authorization") {
            fields.append(name: "Proxy-Authorization", value: authorization)
        }
        let target = connection.sendsAbsoluteForm ? request.url.description : request.url.pathAndQuery
        let head = RequestHead(method: request.method, target: target, fields: fields)
        try RequestEncoder.encodeHead(head, framing: body.framing, into: &bytes)
        if let logger {
            let text = HTTPLogEvent.render(
                startLine: "\(request.method) \(target) HTTP/1.1",
                fields: Self.wireFields(fields, framing: body.framing))
            logger(HTTPLogEvent(kind: .requestHead, text: text))
        }
        let inline = request.expectContinue ? nil : body.smallInlineBytes
        if let inline { bytes.append(contentsOf: inline) }

        report(.started)
        do {
            try await connection.stream.write(bytes[...], deadline: deadlines.nextWait())
        } catch {
            throw failure(error, phase: .send, responseBytes: 0)
        }
        headSentNanoseconds = Deadline.nowNanoseconds()
        let hasWriter: Bool
        switch report(.headSent) {
        case .sendBody where inline != nil:
            reportUploadProgress(sent: Int64(inline?.count ?? 0))
            report(.bodyChunkSent)
            report(.bodyFinished)
            hasWriter = false
        case .sendBody, .scheduleContinueTimeout:
            startWriter()
            hasWriter = true
        case .wait, .sendHead, .stopSendingBody, .returnToPool, .closeConnection, .resendOnNewConnection, .fail,
            .failCancelled:
            hasWriter = false
        }
        self.hasWriter = hasWriter
        do {
            return try await readHead(whileSending: hasWriter)
        } catch {
            shared.withLock { $0.writer }?.cancel()
            throw error
        }
    }

    /// Reads until the final head, reporting 1xx responses to the machine (a 100 opens the body's gate).
    /// `whileSending`: a writer task is sending the body, so only the total deadline bounds these reads.
    private func readHead(whileSending: Bool) async throws -> (ResponseHead, [ResponseHead]) {
        var interim: [ResponseHead] = []
        var received = 0
        // With a head timeout, the whole wait for the head has one deadline from now on; without one, each
        // read gets the idle timeout afresh.
        let headDeadline = deadlines.headDeadline()
        while true {
            let event: ResponseEvent
            do {
                event = try decoder.nextEvent()
            } catch {
                throw failure(error, phase: .head, responseBytes: received)
            }
            switch event {
            case .informational(let head):
                log(head)
                interim.append(head)
                report(.informationalReceived(status: head.status.rawValue))
            case .head(let head):
                log(head)
                // The codec's verdict is the one keep-alive rule (RFC 9112 §9.3, and a body delimited by the
                // close never allows reuse): a 2xx without it stops a body still being sent.
                let action = report(
                    .responseHeadReceived(status: head.status.rawValue, isKeepAlive: decoder.isKeepAlive))
                if case .fail(let error) = action { throw error }
                headReceived()
                expectedBodyBytes = Self.announcedLength(decoder.framing)
                return (head, interim)
            case .needMoreData:
                do {
                    let deadline = whileSending ? deadlines.total : (headDeadline ?? deadlines.nextWait())
                    // The first read waits for the answer to the head just written: nothing can be there yet.
                    let count = try await receive(deadline: deadline, isFirstAfterSending: received == 0)
                    if received == 0, count > 0 { firstByteNanoseconds = Deadline.nowNanoseconds() }
                    received += count
                } catch {
                    throw failure(error, phase: .head, responseBytes: received)
                }
            case .body, .end, .paused:
                preconditionFailure("decoder event \(event) before a response head")
            }
        }
    }

    /// The final head arrived: a writer failure recorded before it is reported to the machine now (until
    /// then the reader decided what it meant).
    private func headReceived() {
        let pending = shared.withLock { shared -> (any Error)? in
            shared.isHeadReceived = true
            return shared.recordedFailure
        }
        if let pending { reportWriterFailure(pending) }
    }

    /// Reads what the stream has (up to 256 KiB) and feeds it to the decoder; an end of stream is fed as an
    /// empty slice. Returns the number of bytes read. `isFirstAfterSending`: the first read after the head
    /// went out, which waits for readiness without a first `recv` that would only find nothing
    /// (`ByteStream.readAfterSending`).
    func receive(deadline: Deadline, isFirstAfterSending: Bool = false) async throws -> Int {
        let connection = self.connection
        connection.receiveBuffer.removeAll(keepingCapacity: true)
        let count =
            isFirstAfterSending
            ? try await connection.stream.readAfterSending(
                into: &connection.receiveBuffer, maxBytes: ConnectionReadSize.body, deadline: deadline)
            : try await connection.stream.read(
                into: &connection.receiveBuffer, maxBytes: ConnectionReadSize.body, deadline: deadline)
        decoder.feed(count == 0 ? [] : connection.receiveBuffer[...])
        return count
    }

    /// The length a body has by its framing: Content-Length, 0 for none, nil when unknown in advance.
    private static func announcedLength(_ framing: BodyFraming?) -> Int64? {
        switch framing {
        case .contentLength(let length)?: return length
        case BodyFraming.none?: return 0
        case .chunked?, .untilClose?, nil: return nil
        }
    }

    private func log(_ head: ResponseHead) {
        guard let logger else { return }
        let startLine = "\(head.version) \(head.status.rawValue) \(head.reason)"
        logger(HTTPLogEvent(kind: .responseHead, text: HTTPLogEvent.render(startLine: startLine, fields: head.fields)))
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

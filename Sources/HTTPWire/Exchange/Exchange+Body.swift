// Exchange+Body: the writer task that sends a request body too large to go with the head (exchange layer).
//
// The writer waits for the machine's go-ahead (`Exchange.waitForGate`), then hands the body to
// `RequestBodyWriter`, which puts it on the connection piece by piece, and reports each piece to the machine:
// a `.sendBody` answer means go on, anything else (the server answered early with an error, the exchange
// ended) means stop. When the last byte is out, a timer on the reactor's clock gives the server the idle
// timeout to start its answer. A failed write is not necessarily the exchange's end — a server that answered
// early may have closed its read side — so it is recorded and the reader decides, unless the head is
// already in. This file never reads from the connection.

import HTTPWireCodec
import HTTPWireTransport

extension Exchange {
    /// Starts the task that sends the body once the gate opens.
    func startWriter() {
        let progress = request.uploadProgress
        let total = body.totalBytes
        let task = Task {
            guard await self.waitForGate() else { return }
            let deadlines = self.deadlines
            var writer = RequestBodyWriter(connection: self.connection) { deadlines.nextWait() }
            do {
                // However the writer stops, the meter stops its quiet checks for this attempt.
                defer { progress?.attemptEnded() }
                let complete = try await writer.send(self.body) { sent in
                    progress?.report(TransferProgress(receivedBytes: sent, expectedBytes: total))
                    if case .sendBody = self.report(.bodyChunkSent) { return true }
                    return false
                }
                if complete {
                    let sentAt = Deadline.nowNanoseconds()
                    self.shared.withLock { $0.bodySentNanoseconds = sentAt }
                    self.report(.bodyFinished)
                    self.startHeadTimer()
                }
            } catch {
                self.writerFailed(error)
            }
        }
        shared.withLock { $0.writer = task }
    }

    /// Reports body progress for a body that went out with the head.
    func reportUploadProgress(sent: Int64) {
        request.uploadProgress?.report(TransferProgress(receivedBytes: sent, expectedBytes: body.totalBytes))
    }

    /// After the last body byte, the head gets the head timeout (the idle timeout when none is set): when
    /// it has not come by then, the connection is closed and the reader reports `timedOut(.head)`.
    private func startHeadTimer() {
        schedule(after: deadlines.head ?? deadlines.idle) { exchange in
            let isLate = exchange.shared.withLock { shared -> Bool in
                guard !shared.isHeadReceived, !shared.isReleased else { return false }
                shared.recordedFailure = HTTPWireError.timedOut(.head)
                return true
            }
            if isLate { exchange.closeConnectionSoon() }
        }
    }

    /// Records a failed body write. A send failure may just mean the server answered early and closed its
    /// side, so the reader decides; any other failure (a local file that changed, a timeout) breaks the
    /// request, so the connection is closed at once and the reader reports this error.
    private func writerFailed(_ error: any Error) {
        let failure = HTTPWireError.translating(error, phase: deadlines.phaseOfExpiry(.send))
        let reportNow = shared.withLock { shared -> Bool in
            shared.recordedFailure = failure
            return shared.isHeadReceived
        }
        if case HTTPWireError.sendFailed = failure {
        } else {
            closeConnectionSoon()
        }
        if reportNow { reportWriterFailure(failure) }
    }

    /// While the response flows, a failed write only abandons the body (the machine says `.wait`); any
    /// other writer failure ends the exchange.
    func reportWriterFailure(_ error: any Error) {
        if let wire = error as? HTTPWireError {
            report(.connectionFailed(wire, beforeAnyResponseByte: false))
        } else {
            report(.cancelled)
        }
    }
}

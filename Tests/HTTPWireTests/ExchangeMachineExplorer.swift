// ExchangeMachineExplorer: walks ExchangeStateMachine breadth-first from its initial state, feeding every
// event its driver could report at that point, and records each state and transition it observes (docs test
// support; the Architecture article's exchange diagram is drawn from it).
//
// "Could report" is the driver's contract, not the machine's: the explorer keeps its own small model of an
// `Exchange` — is a write in flight, has the reader seen a head, was the 100-continue timer started — built
// only from the actions the machine returned. So an event the machine would call impossible (a second head)
// is never fed, and any sequence a real driver can produce is: if one of them traps, the test crashes.

import HTTPWireCodec

@testable import HTTPWire

/// Breadth-first exploration of the exchange machine under a model of its driver.
enum ExchangeMachineExplorer {
    /// The driver's side of the conversation, as far as it decides which events can come next.
    struct Driver: Hashable {
        enum Writer: Hashable { case idle, writingHead, writingBody }
        enum Reader: Hashable { case notStarted, awaitingHead, inBody, ended }
        var writer = Writer.idle
        var reader = Reader.notStarted
        var isContinueTimerRunning = false
        /// An interim response was read: a failure is no longer "before any response byte".
        var sawResponseBytes = false
    }

    /// The requests the exploration starts from: every kind of body, fresh and reused connections.
    static let requests:
        [(method: Method, body: ExchangeStateMachine.RequestBody, expectsContinue: Bool, isReused: Bool)] = [
            (.get, .empty, false, false), (.get, .empty, false, true), (.put, .replayable, false, true),
            (.post, .replayable, true, false), (.post, .oneShot, false, false),
        ]

    /// One event with representative arguments, and its label in the diagram.
    typealias Step = (label: String, event: ExchangeStateMachine.Event)

    /// The events the driver can report now.
    static func steps(for driver: Driver) -> [Step] {
        var steps: [Step] = [("cancelled", .cancelled)]
        if driver.reader == .notStarted { return [("started", .started)] + steps }
        switch driver.writer {
        case .idle: break
        case .writingHead: steps.append(("headSent", .headSent))
        case .writingBody: steps += [("bodyChunkSent", .bodyChunkSent), ("bodyFinished", .bodyFinished)]
        }
        if driver.writer != .idle {
            steps.append(
                ("connectionFailed(send)", .connectionFailed(.sendFailed(errno: 32), beforeAnyResponseByte: false)))
        }
        if driver.isContinueTimerRunning { steps.append(("continueTimeoutFired", .continueTimeoutFired)) }
        switch driver.reader {
        case .notStarted, .ended:
            break
        case .awaitingHead:
            let before = !driver.sawResponseBytes
            steps += [
                ("informational(100)", .informationalReceived(status: 100)),
                ("informational(103)", .informationalReceived(status: 103)),
                ("head(2xx)", .responseHeadReceived(status: 200, isKeepAlive: true)),
                ("head(2xx, close)", .responseHeadReceived(status: 200, isKeepAlive: false)),
                ("head(413)", .responseHeadReceived(status: 413, isKeepAlive: true)),
                (
                    "connectionFailed(read)",
                    .connectionFailed(.receiveFailed(errno: 104), beforeAnyResponseByte: before)
                ),
                ("connectionFailed(timeout)", .connectionFailed(.timedOut(.head), beforeAnyResponseByte: before)),
            ]
            if before { steps.append(("peerClosedBeforeResponse", .peerClosedBeforeResponse)) }
        case .inBody:
            steps += [
                ("responseEnded", .responseEnded(hasUnconsumedBytes: false, isKeepAlive: true)),
                ("responseEnded(close)", .responseEnded(hasUnconsumedBytes: false, isKeepAlive: false)),
                ("responseEnded(extra bytes)", .responseEnded(hasUnconsumedBytes: true, isKeepAlive: true)),
                ("connectionFailed(read)", .connectionFailed(.receiveFailed(errno: 104), beforeAnyResponseByte: false)),
            ]
        }
        return steps
    }

    /// The driver after it reported `event` and was told `action`; nil once the exchange is over.
    static func driver(_ driver: Driver, after event: ExchangeStateMachine.Event, action: ExchangeStateMachine.Action)
        -> Driver?
    {
        var next = driver
        switch event {
        case .started: next.reader = .awaitingHead
        case .headSent, .bodyChunkSent, .bodyFinished: next.writer = .idle
        case .continueTimeoutFired: next.isContinueTimerRunning = false
        case .informationalReceived: next.sawResponseBytes = true
        case .responseHeadReceived: next.reader = .inBody
        case .responseEnded, .peerClosedBeforeResponse: next.reader = .ended
        case .connectionFailed(.sendFailed, _): next.writer = .idle
        case .connectionFailed: next.reader = .ended
        case .cancelled: break
        }
        switch action {
        case .sendHead: next.writer = .writingHead
        case .sendBody: next.writer = .writingBody
        case .scheduleContinueTimeout: next.isContinueTimerRunning = true
        case .stopSendingBody, .wait: break  // a write in flight still reports its end
        case .returnToPool, .closeConnection, .resendOnNewConnection, .fail, .failCancelled: return nil
        }
        return next
    }

    /// The action's name in the diagram.
    static func name(of action: ExchangeStateMachine.Action) -> String {
        switch action {
        case .sendHead: "sendHead"
        case .sendBody: "sendBody"
        case .scheduleContinueTimeout: "scheduleContinueTimeout"
        case .stopSendingBody: "stopSendingBody"
        case .wait: "wait"
        case .returnToPool: "returnToPool"
        case .closeConnection: "closeConnection"
        case .resendOnNewConnection: "resendOnNewConnection"
        case .fail: "fail"
        case .failCancelled: "failCancelled"
        }
    }

    /// Explores every request kind and returns the union of what was observed.
    static func explore() -> StateGraph {
        var graph = StateGraph(name: "ExchangeStateMachine", initial: "idle", terminals: ["finished"])
        for request in requests {
            let machine = ExchangeStateMachine(
                method: request.method, body: request.body, expectsContinue: request.expectsContinue,
                isReusedConnection: request.isReused)
            var seen: Set<[String]> = []
            var frontier: [(ExchangeStateMachine, Driver)] = [(machine, Driver())]
            while !frontier.isEmpty {
                var nextFrontier: [(ExchangeStateMachine, Driver)] = []
                for (machine, driver) in frontier {
                    for step in steps(for: driver) {
                        var stepped = machine
                        let action = stepped.receive(step.event)
                        graph.add(
                            from: machine.stateName, to: stepped.stateName, label: "\(step.label) / \(name(of: action))"
                        )
                        guard let nextDriver = Self.driver(driver, after: step.event, action: action) else { continue }
                        let key = [stepped.stateName, "\(nextDriver)"]
                        if seen.insert(key).inserted { nextFrontier.append((stepped, nextDriver)) }
                    }
                }
                frontier = nextFrontier
            }
        }
        return graph
    }
}

// PoolMachineExplorer: walks PoolStateMachine breadth-first from a fresh pool, feeding every event its owner
// could report at that point, and records the life of each connection and of the pool itself (docs test
// support; the Architecture article's pool diagrams are drawn from it).
//
// As for the exchange, which events are possible is the owner's knowledge, built only from the actions the
// machine returned: a connection can be reported established only after `.createConnection` asked for it,
// released only while leased, an idle timer can fire only once scheduled. One origin, at most two connections
// (one may stay idle) and three lease requests are enough to reach every rule: queueing, reuse, the idle
// cap's eviction, failures and shutdown.

import HTTPWire

/// Breadth-first exploration of the pool machine under a model of its owner.
enum PoolMachineExplorer {
    typealias Machine = PoolStateMachine

    /// What the owner knows from the actions so far.
    struct Owner: Hashable {
        var nextRequest = 1
        var waiting: Set<Int> = []
        var connecting: Set<Int> = []
        var leased: Set<Int> = []
        var idleTimers: Set<Machine.IdleTimer> = []
        var hasAskedShutdown = false
    }

    /// An event, the connection it is about (if any), and its label in the diagrams.
    struct Step {
        var label: String
        var subject: Machine.ConnectionID?
        var apply: (inout Machine) -> [Machine.Action]
    }

    static let origin = OriginKey(scheme: .http, host: "origin.test")
    static let limits = Machine.Configuration(maxConnectionsPerOrigin: 2, maxIdleConnectionsPerOrigin: 1)
    static let maxRequests = 3

    /// The events the owner can report now.
    static func steps(for owner: Owner) -> [Step] {
        var steps: [Step] = []
        if owner.nextRequest <= maxRequests {
            let request = Machine.RequestID(owner.nextRequest)
            steps.append(
                Step(label: "leaseRequested", subject: nil) { $0.leaseRequested(request: request, origin: origin) })
        }
        for number in owner.connecting.sorted() {
            let id = Machine.ConnectionID(number)
            steps.append(Step(label: "connectionEstablished", subject: id) { $0.connectionEstablished(id) })
            steps.append(Step(label: "connectionFailed", subject: id) { $0.connectionFailed(id) })
        }
        for number in owner.leased.sorted() {
            let id = Machine.ConnectionID(number)
            steps.append(Step(label: "released(reusable)", subject: id) { $0.connectionReleased(id, isReusable: true) })
            steps.append(
                Step(label: "released(not reusable)", subject: id) { $0.connectionReleased(id, isReusable: false) })
        }
        for timer in owner.idleTimers.sorted(by: { $0.connection < $1.connection }) {
            steps.append(Step(label: "idleTimeoutFired", subject: timer.connection) { $0.idleTimeoutFired(timer) })
            steps.append(
                Step(label: "connectionClosed", subject: timer.connection) { $0.connectionClosed(timer.connection) })
        }
        for number in owner.waiting.sorted() {
            let request = Machine.RequestID(number)
            steps.append(Step(label: "leaseCancelled", subject: nil) { $0.leaseCancelled(request) })
        }
        if !owner.hasAskedShutdown {
            steps.append(Step(label: "shutdownRequested", subject: nil) { $0.shutdownRequested() })
        }
        return steps
    }

    /// The owner after an event with the given label and the machine's actions for it.
    static func owner(_ owner: Owner, after step: Step, actions: [Machine.Action]) -> Owner {
        var next = owner
        switch step.label {
        case "leaseRequested": next.nextRequest += 1
        case "shutdownRequested": next.hasAskedShutdown = true
        default: break
        }
        if let subject = step.subject?.rawValue {
            next.connecting.remove(subject)
            next.leased.remove(subject)
            if step.label == "idleTimeoutFired" || step.label == "connectionClosed" {
                next.idleTimers = next.idleTimers.filter { $0.connection.rawValue != subject }
            }
        }
        for action in actions {
            switch action {
            case .enqueue(let request, _): next.waiting.insert(request.rawValue)
            case .lease(let grant):
                next.waiting.remove(grant.request.rawValue)
                next.leased.insert(grant.connection.rawValue)
            case .createConnection(let id, _): next.connecting.insert(id.rawValue)
            case .scheduleIdleTimeout(let timer): next.idleTimers.insert(timer)
            case .cancelIdleTimeout(let timer): next.idleTimers.remove(timer)
            case .closeConnection(let id):
                next.idleTimers = next.idleTimers.filter { $0.connection != id }
                next.connecting.remove(id.rawValue)
                next.leased.remove(id.rawValue)
            case .failLease(let request, _): next.waiting.remove(request.rawValue)
            case .shutdownComplete: break
            }
        }
        return next
    }

    /// The connection an action is about, if any.
    static func connection(of action: Machine.Action) -> Machine.ConnectionID? {
        switch action {
        case .lease(let grant): grant.connection
        case .createConnection(let id, _), .closeConnection(let id): id
        case .scheduleIdleTimeout(let timer), .cancelIdleTimeout(let timer): timer.connection
        case .enqueue, .failLease, .shutdownComplete: nil
        }
    }

    /// The action's name in the diagrams.
    static func name(of action: Machine.Action) -> String {
        switch action {
        case .enqueue: "enqueue"
        case .lease: "lease"
        case .createConnection: "createConnection"
        case .scheduleIdleTimeout: "scheduleIdleTimeout"
        case .cancelIdleTimeout: "cancelIdleTimeout"
        case .closeConnection: "closeConnection"
        case .failLease: "failLease"
        case .shutdownComplete: "shutdownComplete"
        }
    }

    /// Explores the pool; returns the life of one connection and the life of the pool.
    static func explore() -> (connection: StateGraph, pool: StateGraph) {
        var connectionGraph = StateGraph(name: "PooledConnectionLife", initial: "connecting", terminals: ["closed"])
        var poolGraph = StateGraph(name: "PoolLifeCycle", initial: "running", terminals: ["shutDown"])
        var seen: Set<[String]> = []
        var frontier: [(Machine, Owner)] = [(Machine(configuration: limits), Owner())]
        while !frontier.isEmpty {
            var nextFrontier: [(Machine, Owner)] = []
            for (machine, owner) in frontier {
                let before = machine.stateNames
                for step in steps(for: owner) {
                    var stepped = machine
                    let actions = step.apply(&stepped)
                    let after = stepped.stateNames
                    record(step, actions, before: before, after: after, into: &connectionGraph)
                    if before.pool != after.pool || actions.contains(.shutdownComplete) {
                        let completes = actions.contains(.shutdownComplete) ? " / shutdownComplete" : ""
                        poolGraph.add(from: before.pool, to: after.pool, label: step.label + completes)
                    }
                    let nextOwner = Self.owner(owner, after: step, actions: actions)
                    let key = [describe(after), "\(nextOwner)"]
                    if seen.insert(key).inserted { nextFrontier.append((stepped, nextOwner)) }
                }
            }
            frontier = nextFrontier
        }
        return (connectionGraph, poolGraph)
    }

    /// Adds, for every connection the step concerned, its move from one state to the next.
    private static func record(
        _ step: Step, _ actions: [Machine.Action], before: (pool: String, connections: [Machine.ConnectionID: String]),
        after: (pool: String, connections: [Machine.ConnectionID: String]), into graph: inout StateGraph
    ) {
        let ids = Set(before.connections.keys).union(after.connections.keys)
        for id in ids.sorted() {
            let own = actions.filter { connection(of: $0) == id }.map(name(of:))
            let from = before.connections[id]
            let to = after.connections[id] ?? "closed"
            guard from != to || step.subject == id || !own.isEmpty else { continue }
            let event = step.subject == nil || step.subject == id ? step.label : "another's " + step.label
            let label = own.isEmpty ? event : event + " / " + own.joined(separator: ", ")
            if let from {
                graph.add(from: from, to: to, label: label)
            } else {
                graph.initialLabels.insert(label)  // created by this step: the entry arrow
            }
        }
    }

    private static func describe(_ names: (pool: String, connections: [Machine.ConnectionID: String])) -> String {
        names.pool + ";"
            + names.connections.keys.sorted().map { "\($0.rawValue)=\(names.connections[$0] ?? "")" }
            .joined(separator: ",")
    }
}

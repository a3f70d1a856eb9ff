// StateDiagramTests: the exchange and pool state diagrams of the Architecture article are drawn from the
// machines themselves (docs test). ExchangeMachineExplorer and PoolMachineExplorer step the machines
// breadth-first through every event their owners can report; these tests check that what they observed is
// what the machines' own comments promise (each State case lists its next states), and, with
// HTTPWIRE_DIAGRAMS_OUT=DIR set (as `make docs` does through docs/diagrams.sh), write the DOT files that
// `dot` renders into the DocC catalogue. So the pictures cannot drift from the code: they are re-drawn from
// it on every docs build, and a comment that stops being true fails here.

import Foundation
import TestSupport
import Testing

@Suite struct StateDiagramTests {
    static let sourcesRoot =
        String(#filePath.split(separator: "/Tests/HTTPWireTests/").first ?? "") + "/Sources/HTTPWire/"

    /// For each case of the enum `enumName` in `file`: its name and the states its `///` line says come next.
    /// "Next: a, b(.x), c (why)" gives a, b(x), c; "Terminal." gives nothing.
    static func documentedNextStates(enumName: String, inFile file: String) throws -> [String: Set<String>] {
        let source = try String(contentsOfFile: sourcesRoot + file, encoding: .utf8)
        let body = try #require(source.components(separatedBy: "enum \(enumName):").dropFirst().first)
        var result: [String: Set<String>] = [:]
        var comment = ""
        for line in body.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("///") {
                comment += " " + trimmed.dropFirst(3)
            } else if trimmed.hasPrefix("case ") {
                let name = String(trimmed.dropFirst(5).prefix { $0.isLetter || $0.isNumber })
                var next: Set<String> = []
                if let range = comment.range(of: "Next:") {
                    // Drop explanations in parentheses that follow a space; keep `name(.x)` arguments.
                    let text = comment[range.upperBound...].replacingOccurrences(
                        of: #" \([^)]*\)"#, with: "", options: .regularExpression)
                    for item in text.split(separator: ",") {
                        let word = item.trimmingCharacters(in: .whitespaces.union(.punctuationCharacters))
                            .replacingOccurrences(of: "(.", with: "(")
                        if !word.isEmpty { next.insert(word.hasSuffix(")") || word.contains("(") ? word + ")" : word) }
                    }
                }
                result[name] = Set(next.map { $0.replacingOccurrences(of: "))", with: ")") })
                comment = ""
            } else if trimmed.hasPrefix("}") {
                break
            } else if !trimmed.hasPrefix("//") {
                comment = ""
            }
        }
        return result
    }

    /// The states observed after each state, self-loops left out; `family` folds `receivingBody(x)` into
    /// `receivingBody` where a comment names the family only.
    static func observedNextStates(_ graph: StateGraph, from state: String) -> Set<String> {
        Set(graph.transitions.filter { $0.from == state && $0.to != state }.map(\.to))
    }

    static func matches(_ documented: Set<String>, observed: Set<String>) -> Bool {
        // A bare family name ("receivingBody") stands for any of its members.
        observed.allSatisfy { state in
            documented.contains(state) || documented.contains(String(state.prefix { $0 != "(" }))
        }
            && documented.allSatisfy { name in
                observed.contains(name) || observed.contains { $0.hasPrefix(name + "(") }
            }
    }

    @Test("the exchange machine moves only to the next states its State comments list", .timeLimit(.scaledMinutes(1)))
    func exchangeMatchesComments() throws {
        let graph = ExchangeMachineExplorer.explore()
        let documented = try Self.documentedNextStates(
            enumName: "State", inFile: "Exchange/ExchangeStateMachine.swift")
        try #require(documented.count >= 8, "found \(documented.keys.sorted()) in the State enum")
        // A case with a payload (`receivingBody(sent)`) is one family: its comment speaks for all members.
        let families = Dictionary(grouping: graph.states, by: { String($0.prefix { $0 != "(" }) })
        for (family, members) in families.sorted(by: { $0.key < $1.key }) {
            let listed = try #require(documented[family], "\(family) has no case in the State enum")
            let observed = members.reduce(into: Set<String>()) {
                $0.formUnion(Self.observedNextStates(graph, from: $1))
            }
            #expect(
                Self.matches(listed, observed: observed),
                "\(family): the comment lists \(listed.sorted()), the machine went to \(observed.sorted())")
        }
        // Within the family, RequestProgress's own comments: sending moves on to sent or abandoned; those stay.
        let progress = try Self.documentedNextStates(
            enumName: "RequestProgress", inFile: "Exchange/ExchangeStateMachine.swift")
        for (member, listed) in progress.sorted(by: { $0.key < $1.key }) {
            let observed = Self.observedNextStates(graph, from: "receivingBody(\(member))")
                .filter { $0.hasPrefix("receivingBody(") }.map { String($0.dropFirst(14).dropLast()) }
            #expect(
                listed == Set(observed),
                "receivingBody(\(member)): comment \(listed.sorted()), observed \(observed.sorted())")
        }
        #expect(Set(graph.states.map { String($0.prefix { $0 != "(" }) }) == Set(documented.keys))
        #expect(graph.reachableStates == graph.states)
    }

    @Test(
        "a pooled connection moves only to the next states its ConnectionState comments list",
        .timeLimit(.scaledMinutes(1)))
    func poolMatchesComments() throws {
        let graph = PoolMachineExplorer.explore().connection
        var documented = try Self.documentedNextStates(
            enumName: "ConnectionState", inFile: "Pool/PoolStateMachine.swift")
        documented = documented.mapValues { Set($0.map { $0 == "forgotten" ? "closed" : $0 }) }
        documented["closed"] = []
        for state in graph.states.sorted() {
            let listed = try #require(documented[state], "\(state) has no case in ConnectionState")
            let observed = Self.observedNextStates(graph, from: state)
            #expect(
                listed == observed.union(graph.hasTransition(from: state, to: state) ? [state] : []),
                "\(state): the comment lists \(listed.sorted()), the machine went to \(observed.sorted())")
        }
        #expect(graph.states == ["connecting", "idle", "leased", "closed"])
    }

    @Test("the diagrams show the rules the articles describe", .timeLimit(.scaledMinutes(1)))
    func diagramsShowTheRules() throws {
        let exchange = ExchangeMachineExplorer.explore()
        #expect(exchange.hasTransition(from: "idle", to: "sendingHead", labelContaining: "started / sendHead"))
        #expect(
            exchange.hasTransition(
                from: "receivingBody(sent)", to: "finished", labelContaining: "responseEnded / returnToPool"))
        #expect(
            exchange.hasTransition(
                from: "awaitingHead", to: "finished",
                labelContaining: "peerClosedBeforeResponse / resendOnNewConnection"))
        #expect(
            exchange.hasTransition(
                from: "awaitingContinue", to: "sendingBody", labelContaining: "informational(100) / sendBody"))
        #expect(
            exchange.hasTransition(
                from: "sendingBody", to: "receivingBody(abandoned)", labelContaining: "head(413) / stopSendingBody"))
        let pool = PoolMachineExplorer.explore()
        #expect(
            pool.connection.hasTransition(
                from: "connecting", to: "idle", labelContaining: "connectionEstablished / scheduleIdleTimeout"))
        #expect(
            pool.connection.hasTransition(
                from: "idle", to: "leased", labelContaining: "leaseRequested / cancelIdleTimeout, lease"))
        // The idle cap: parking a second connection evicts the least recently used one.
        #expect(
            pool.connection.hasTransition(
                from: "idle", to: "closed",
                labelContaining: "another's released(reusable) / cancelIdleTimeout, closeConnection"))
        #expect(
            pool.connection.initialLabels == [
                "leaseRequested / createConnection", "another's connectionFailed / createConnection",
                "another's released(not reusable) / createConnection",
            ])
        #expect(pool.pool.hasTransition(from: "running", to: "shuttingDown", labelContaining: "shutdownRequested"))
        #expect(pool.pool.hasTransition(from: "shuttingDown", to: "shutDown", labelContaining: "/ shutdownComplete"))
    }

    @Test("writes the DOT files when HTTPWIRE_DIAGRAMS_OUT names a directory", .timeLimit(.scaledMinutes(1)))
    func writesDiagrams() throws {
        let pool = PoolMachineExplorer.explore()
        let diagrams = [
            ("exchange-states.dot", ExchangeMachineExplorer.explore().dot),
            ("pool-connection-states.dot", pool.connection.dot),
            ("pool-states.dot", pool.pool.dot),
        ]
        for (_, dot) in diagrams {
            #expect(dot.hasPrefix("// Generated by StateDiagramTests") && dot.hasSuffix("}\n"))
        }
        // Two explorations write the same bytes: the picture changes only when the code does.
        #expect(ExchangeMachineExplorer.explore().dot == diagrams[0].1)
        guard let directory = ProcessInfo.processInfo.environment["HTTPWIRE_DIAGRAMS_OUT"] else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, dot) in diagrams {
            try Data(dot.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
    }
}

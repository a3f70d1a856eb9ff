// ClientFixture: what the HTTPClient test suites share — a client pointed at a fixture server, a log
// collector, and JSON shapes of the fixture's answers (test support).
//
// Every client suite talks to an in-process FixtureServer on 127.0.0.1:0, never to the network; each test
// makes its own server and client, so suites can run in parallel without seeing each other's connections.

import FixtureServer
import HTTPWire
import HTTPWireCodec
import HTTPWireTransport
import TestSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Helpers for client tests.
enum ClientFixture {
    /// A client whose base URL is the server's, with timeouts short enough that a hang fails the test yet
    /// long enough for a loaded machine (scaled by TestTime.scale); `configure` may change anything else.
    static func client(
        for server: FixtureServer, _ configure: (inout ClientConfiguration) -> Void = { _ in }
    ) -> HTTPClient {
        var configuration = ClientConfiguration()
        configuration.baseURL = server.baseURL
        configuration.timeouts.connect = .seconds(10).scaled
        configuration.timeouts.idle = .seconds(20).scaled
        configure(&configuration)
        return HTTPClient(configuration: configuration)
    }

    /// What `/echo` answers (snake_case keys, see UploadEcho.Echo).
    struct Echo: Decodable {
        var method: String
        var target: String
        var headers: [[String]]
        var body: String
        var bodyLength: Int

        /// The values of field `name`, compared case-insensitively.
        func values(_ name: String) -> [String] {
            headers.filter { $0.count == 2 && $0[0].lowercased() == name.lowercased() }.map { $0[1] }
        }
    }

    /// What `/connection-count` answers.
    struct Counts: Decodable {
        var acceptedConnections: Int
        var requestsServed: Int
        var requestsOnConnection: Int
    }

    /// Decodes the fixture's snake_case JSON.
    static func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse) throws -> Value {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try response.decode(type, using: decoder)
    }
}

/// Collects a client's log events, for tests of the logging hook.
final class LogCollector: Sendable {
    private let events = LockedState<[HTTPLogEvent]>([])

    /// The hook to put in `ClientConfiguration.logger`.
    var logger: @Sendable (HTTPLogEvent) -> Void {
        { event in self.events.withLock { $0.append(event) } }
    }

    /// Everything logged so far, in order.
    var all: [HTTPLogEvent] { events.withLock { $0 } }

    /// The events of one kind.
    func events(_ kind: HTTPLogEvent.Kind) -> [HTTPLogEvent] { all.filter { $0.kind == kind } }
}

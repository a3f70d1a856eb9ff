// PostJSON: POST an Encodable value as JSON and decode the JSON answer (example: the public API only).

import HTTPWire

/// Example: a value encoded as a JSON body, and the echoed answer decoded.
package enum PostJSON {
    /// The value sent.
    package struct Note: Codable, Equatable, Sendable {
        /// A title.
        package var title: String
        /// Some tags.
        package var tags: [String]
    }

    /// `RunExample post-json http://127.0.0.1:8080/json` (the fixture route echoes the body back). Returns
    /// what was sent and what came back.
    package static func run(client: HTTPClient, url: String, log: (String) -> Void = { print($0) }) async throws
        -> (sent: Note, echoed: Note)
    {
        let note = Note(title: "Dunes at dawn", tags: ["desert", "morning"])
        // Adds Content-Type and Accept: application/json unless the request sets them.
        let response = try await client.post(url, json: note)
        let echoed = try response.decode(Note.self)
        log("\(response.status.rawValue): \(echoed.title) \(echoed.tags)")
        return (note, echoed)
    }
}

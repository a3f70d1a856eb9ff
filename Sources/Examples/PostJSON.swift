// PostJSON: POST an Encodable value as JSON and decode the JSON answer.

import HTTPWire

enum PostJSON {
    struct Note: Codable {
        var title: String
        var tags: [String]
    }

    /// `Examples post-json http://127.0.0.1:8080/json` (the fixture route echoes the body back)
    static func run(_ arguments: [String]) async throws {
        let client = HTTPClient()
        let note = Note(title: "Dunes at dawn", tags: ["desert", "morning"])
        let response = try await client.post(arguments.first ?? "http://127.0.0.1:8080/json", json: note)
        let echoed = try response.decode(Note.self)
        print("\(response.status.rawValue): \(echoed.title) \(echoed.tags)")
        await client.shutdown()
    }
}

// GetJSON: GET a URL and decode its JSON body into a Decodable type.

import HTTPWire

enum GetJSON {
    struct Greeting: Decodable {
        var message: String
        var numbers: [Int]
    }

    /// `Examples get-json http://127.0.0.1:8080/json`
    static func run(_ arguments: [String]) async throws {
        let client = HTTPClient()
        let response = try await client.get(arguments.first ?? "http://127.0.0.1:8080/json")
        print("\(response.status.rawValue) \(response.reason)")
        let greeting = try response.decode(Greeting.self)
        print("message: \(greeting.message), numbers: \(greeting.numbers)")
        await client.shutdown()
    }
}

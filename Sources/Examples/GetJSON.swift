// GetJSON: GET a URL and decode its JSON body into a Decodable type (example: the public API only). Like
// every file of Sources/Examples it is one scenario as one function, run by `RunExample get-json` and,
// checked, by `wire demo`; it must not reach past `import HTTPWire`.

import HTTPWire

/// Example: one GET whose JSON body becomes a Swift value.
package enum GetJSON {
    /// The fixture server's `/json` answer.
    package struct Greeting: Decodable, Sendable {
        /// Always true from the fixture server, so a check can tell its answer from another server's.
        package var isFixture: Bool
        /// A line of text.
        package var message: String
        /// `[1, 2, 3]`.
        package var numbers: [Int]

        enum CodingKeys: String, CodingKey {
            case isFixture = "is_fixture", message, numbers
        }
    }

    /// `RunExample get-json http://127.0.0.1:8080/json`: fetches `url` and decodes its body.
    package static func run(client: HTTPClient, url: String, log: (String) -> Void = { print($0) }) async throws
        -> Greeting
    {
        let response = try await client.get(url)
        log("\(response.status.rawValue) \(response.reason)")
        let greeting = try response.decode(Greeting.self)  // JSONDecoder over the whole body
        log("decoded: \"\(greeting.message)\", numbers \(greeting.numbers)")
        return greeting
    }
}

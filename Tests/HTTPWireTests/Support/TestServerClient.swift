// TestServerClient: a client pointed at an HTTPWireTesting `TestServer`, for the suites of the app-facing
// API (test support). Each test makes its own server and client.

import HTTPWire
import HTTPWireTesting

extension TestServer {
    /// A client whose base URL is this server's; `configure` may change anything else.
    func client(_ configure: (inout ClientConfiguration) -> Void = { _ in }) -> HTTPClient {
        var configuration = ClientConfiguration()
        configuration.baseURL = baseURL
        configuration.timeouts.connect = .seconds(10)
        configuration.timeouts.idle = .seconds(20)
        configure(&configuration)
        return HTTPClient(configuration: configuration)
    }
}

// HttpbinInteropTests: the client against httpbin (PyPI) on loopback, a server written independently of this
// project (client layer, real server). The cookie and content-coding suites add their own httpbin tests; this
// one shows the harness and the plain request/response path agree with a server we did not write.

import HTTPWire
import TestSupport
import Testing

@Suite("httpbin interop")
struct HttpbinInteropTests {
    @Test(
        "a GET with a query reaches httpbin, which echoes the arguments and the headers we sent",
        .timeLimit(.scaledMinutes(1)))
    func getEchoesArguments() async throws {
        try await withHttpbin { base in
            let client = HTTPClient()
            let response = try await client.get(base + "/get?flavour=oat&count=2", fields: ["X-Probe": "42"])
            await client.shutdown()
            #expect(response.status == .ok)
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(text.contains("\"flavour\": \"oat\""))
            #expect(text.contains("\"count\": \"2\""))
            #expect(text.contains("\"X-Probe\": \"42\""))
        }
    }
}

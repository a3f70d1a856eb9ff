// WireDemoTests: `wire demo` — the tour `make demo` runs — completes every scenario and exits 0, in a pipe
// (so no progress bar is drawn), within the minute the README promises.

import TestSupport
import Testing

@Suite struct WireDemoTests {
    @Test("wire demo runs every scenario, checks it, and exits 0", .timeLimit(.scaledMinutes(1)))
    func demo() async throws {
        let result = try await WireProcess.run(["demo"])
        #expect(result.status == 0, "\(result.standardOutput.suffix(2000))\n\(result.standardError)")
        #expect(result.standardOutput.contains("16 of 16 scenarios did what they say."))
        #expect(!result.standardOutput.contains("FAILED"))
        // The heads of the resume are visible: a Range request with If-Range, answered 206.
        #expect(result.standardOutput.contains("> Range: bytes="))
        #expect(result.standardOutput.contains("> If-Range: "))
        #expect(result.standardOutput.contains("< HTTP/1.1 206 Partial Content"))
        #expect(!result.standardError.contains("\r"), "no progress bar in a pipe")
    }
}

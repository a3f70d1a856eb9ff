import HTTPWire
import Testing

@Suite struct ErrorMappingTests {
    @Test("every error maps to curl's exit code")
    func exitCodes() {
        #expect(HTTPWireError.couldNotResolveHost("x").exitCode == 6)
        #expect(HTTPWireError.timedOut(.connect).exitCode == 28)
        #expect(HTTPWireError.peerCertificateRejected("x").exitCode == 60)
    }
}

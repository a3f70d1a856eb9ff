import HTTPWireCodec
import Testing

@Suite struct ResponseDecoderSmokeTests {
    @Test("decodes a content-length response")
    func smoke() throws {
        var decoder = ResponseDecoder()
        decoder.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA".utf8))
        let head = try decoder.nextEvent()
        guard case .head(let h) = head else { Issue.record("not head \(head)"); return }
        #expect(h.status == .ok)
        #expect(try decoder.nextEvent() == .body(ArraySlice("hello".utf8)))
        #expect(try decoder.nextEvent() == .end(trailers: HTTPFields()))
        #expect(try decoder.nextEvent() == .paused)
        #expect(Array(decoder.unconsumedBytes) == Array("EXTRA".utf8))
    }
}

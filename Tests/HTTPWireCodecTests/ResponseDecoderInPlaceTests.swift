// ResponseDecoder fed slices of one growing buffer, as a download decodes a chunked body in its write block:
// chunk data come back as slices of that buffer (their ranges are what gets written), and once the bytes a
// read ended in are detached, the buffer is the caller's alone again, so the next read appends to it in place
// with no copy-on-write. Every split of the body into two reads, then random bodies cut into random reads,
// alternating as the exchange alternates: in place when nothing waits, through a buffer when a read ended
// inside the framing.

import Testing

@testable import HTTPWireCodec

@Suite struct ResponseDecoderInPlaceTests {
    static let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
    /// Chunk sizes 3, 16 (with an extension) and 1, then trailers: every kind of framing a read can end in.
    static let body = Array("3\r\nabc\r\n10;ext=1\r\n0123456789abcdef\r\n1\r\nZ\r\n0\r\nX-T: 1\r\n\r\n".utf8)
    static let data = Array("abc0123456789abcdefZ".utf8)

    /// A decoder fed `head` and past its head event: the next bytes it takes are the chunked body.
    static func decoderPastHead() throws -> ResponseDecoder {
        var decoder = ResponseDecoder()
        decoder.feed(head)
        let event = try decoder.nextEvent()
        let isHead = if case .head = event { true } else { false }
        try #require(isHead, "no head: \(event)")
        return decoder
    }

    /// Feeds `buffer[start...]` and takes events until more bytes are needed or the body ends; returns the
    /// ranges of `buffer` the data came in, data that did not (see below), and the trailers at the end.
    static func decode(
        _ decoder: inout ResponseDecoder, _ buffer: [UInt8], from start: Int
    ) throws -> (ranges: [Range<Int>], copied: [UInt8], trailers: HTTPFields?) {
        let leftover = decoder.unconsumedBytes.count
        decoder.feed(buffer[start...])
        var ranges: [Range<Int>] = []
        var copied: [UInt8] = []
        while true {
            switch try decoder.nextEvent() {
            case .body(let slice):
                let inBuffer = slice.withUnsafeBufferPointer { piece in
                    buffer.withUnsafeBufferPointer { piece.baseAddress == $0.baseAddress! + slice.startIndex }
                }
                if inBuffer {
                    ranges.append(slice.startIndex..<slice.endIndex)
                } else {
                    // Fed after a detached leftover, the new bytes joined it: they come from the decoder's
                    // own storage (the exchange reads those the ordinary way, never in place).
                    #expect(leftover > 0, "chunk data copied although nothing was waiting")
                    copied += slice
                }
            case .end(let trailers): return (ranges, copied, trailers)
            case .needMoreData: return (ranges, copied, nil)
            case let other:
                Issue.record("unexpected \(other)")
                return (ranges, copied, nil)
            }
        }
    }

    @Test("chunk data are slices of the buffer; after detaching, the next read appends in place, at every split")
    func everySplit() throws {
        for split in 1..<Self.body.count {
            var decoder = try Self.decoderPastHead()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(Self.body.count)
            buffer += Self.body[..<split]
            let first = try Self.decode(&decoder, buffer, from: 0)
            decoder.detachUnconsumedBytes()
            let address = buffer.withUnsafeBufferPointer { $0.baseAddress }
            buffer += Self.body[split...]
            // Still shared, the buffer would have been copied to new storage by the append.
            #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == address, "split \(split): copied on write")
            let second = try Self.decode(&decoder, buffer, from: split)
            #expect(first.copied.isEmpty)
            let data = first.ranges.flatMap { buffer[$0] } + second.copied + second.ranges.flatMap { buffer[$0] }
            #expect(data == Self.data, "split \(split)")
            #expect(second.trailers?["X-T"] == "1", "split \(split)")
            #expect(decoder.isKeepAlive)
        }
    }

    /// One seed's body: chunks of 1 byte to 3 KiB (some with an extension), then trailers or none.
    static func randomBody(_ random: inout SplitMix64) -> (message: [UInt8], data: [UInt8]) {
        var message: [UInt8] = []
        var data: [UInt8] = []
        for _ in 0..<Int.random(in: 1...20, using: &random) {
            let size = Int.random(in: 1...3000, using: &random)
            let first = UInt8.random(in: 0...255, using: &random)
            let chunk = (0..<size).map { first &+ UInt8(truncatingIfNeeded: $0) }
            let extensionText = Bool.random(using: &random) ? ";e=1" : ""
            message += Array((String(size, radix: 16) + extensionText + "\r\n").utf8) + chunk + Array("\r\n".utf8)
            data += chunk
        }
        message += Array((Bool.random(using: &random) ? "0\r\nX-T: 1\r\n\r\n" : "0\r\n\r\n").utf8)
        return (message, data)
    }

    @Test("random bodies and reads, as the exchange does it: in place when nothing waits, else through a buffer")
    func randomReads() throws {
        for seed in 0..<100 as Range<UInt64> {
            var random = SplitMix64(seed: seed)
            let (message, data) = Self.randomBody(&random)
            var decoder = try Self.decoderPastHead()
            var received: [UInt8] = []
            var position = 0
            var ended = false
            while !ended {
                let count = min(Int.random(in: 1...9000, using: &random), message.count - position)
                let read = message[position..<(position + count)]
                position += count
                if decoder.unconsumedBytes.isEmpty {
                    // In place: a block the read appends to; the data are ranges of it.
                    var block: [UInt8] = []
                    block.reserveCapacity(9000)
                    block += read
                    let (ranges, copied, trailers) = try Self.decode(&decoder, block, from: 0)
                    #expect(copied.isEmpty, "seed \(seed)")
                    decoder.detachUnconsumedBytes()
                    received += ranges.flatMap { block[$0] }
                    ended = trailers != nil
                } else {
                    // Through the receive buffer: the bytes join the ones waiting, in the decoder's storage.
                    let (ranges, copied, trailers) = try Self.decode(&decoder, Array(read), from: 0)
                    #expect(ranges.isEmpty, "seed \(seed)")
                    received += copied
                    ended = trailers != nil
                }
                if position == message.count && !ended {
                    Issue.record("seed \(seed): the body did not end")
                    break
                }
            }
            #expect(received == data, "seed \(seed)")
            #expect(position == message.count, "seed \(seed)")
        }
    }
}

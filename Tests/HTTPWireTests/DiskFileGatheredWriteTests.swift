// DiskFileGatheredWriteTests: `DiskFile.write(_ pieces:at:)`, the pwritev(2) behind a chunked download's
// write (the chunk data between the framing left in the block): the pieces land in order at the offset,
// empty ones are skipped, and more than IOV_MAX pieces go out in several calls with nothing lost at the seams.

import Foundation
import TestSupport
import Testing

@testable import HTTPWireTransport

@Suite struct DiskFileGatheredWriteTests {
    @Test("pieces are written in order at the offset, past IOV_MAX of them, empty ones skipped")
    func gatheredWrite() throws {
        let path = NSTemporaryDirectory() + "httpwire-pwritev-" + UUID().uuidString
        defer { unlink(path) }
        let file = try DiskFile.open(path, for: .writing(creating: true))
        defer { file.close() }
        // 2,500 pieces of 0 to 6 bytes (2.4 calls' worth), from one buffer with gaps between them, as a
        // block holds chunk data between framing.
        let pieceCount = DiskFile.maxVectorsPerWrite * 5 / 2
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        var expected: [UInt8] = Array("head".utf8)
        for index in 0..<pieceCount {
            storage += [0xFF, 0xFF]  // framing, never written
            let bytes = (0..<(index % 7)).map { UInt8(truncatingIfNeeded: index &+ $0) }
            ranges.append(storage.count..<(storage.count + bytes.count))
            storage += bytes
            expected += bytes
        }
        try Array("head".utf8).withUnsafeBytes { try file.write($0, at: 0) }
        try storage.withUnsafeBytes { all in
            try file.write(ranges.map { UnsafeRawBufferPointer(rebasing: all[$0]) }, at: 4)
        }
        let written = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.count == expected.count)
        #expect(written == expected)
    }
}

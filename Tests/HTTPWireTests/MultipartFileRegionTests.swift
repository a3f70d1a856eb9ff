// MultipartFileRegionTests: FileRegionReader reads regions in blocks through one reused buffer and refuses
// to finish a file whose size changed after it was measured.

import Foundation
import Testing

@testable import HTTPWire

@Suite struct MultipartFileRegionTests {
    @Test("reads a whole file in blocks of at most blockSize bytes")
    func readsInBlocks() throws {
        let directory = try TemporaryDirectory()
        let contents = pseudoRandomBytes(count: 10_000, seed: 11)
        let path = try directory.file("f.bin", contents)
        let region = try FileRegion.wholeFile(at: path)
        #expect(region == FileRegion(path: path, offset: 0, length: 10_000, expectedFileSize: 10_000))

        var reader = try FileRegionReader(region: region, blockSize: 4096)
        var block: [UInt8] = []
        var sizes: [Int] = []
        var collected: [UInt8] = []
        while try reader.readNextBlock(into: &block) {
            sizes.append(block.count)
            collected.append(contentsOf: block)
        }
        #expect(sizes == [4096, 4096, 1808])
        #expect(collected == contents)
        #expect(block.isEmpty)
        #expect(reader.remainingBytes == 0)
        #expect(try reader.readNextBlock(into: &block) == false)
    }

    @Test("the block buffer's storage is reused from one read to the next")
    func reusesBuffer() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("f.bin", pseudoRandomBytes(count: 50_000, seed: 12))
        var reader = try FileRegionReader(region: try FileRegion.wholeFile(at: path), blockSize: 8192)
        var block: [UInt8] = []
        var addresses: Set<UInt> = []
        while try reader.readNextBlock(into: &block) {
            addresses.insert(block.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) })
        }
        #expect(addresses.count == 1)
    }

    @Test("reads a region in the middle of a file")
    func readsRegion() throws {
        let directory = try TemporaryDirectory()
        let contents = pseudoRandomBytes(count: 1000, seed: 13)
        let path = try directory.file("f.bin", contents)
        var reader = try FileRegionReader(
            region: FileRegion(path: path, offset: 100, length: 250, expectedFileSize: 1000), blockSize: 64)
        var block: [UInt8] = []
        var collected: [UInt8] = []
        while try reader.readNextBlock(into: &block) {
            collected.append(contentsOf: block)
        }
        #expect(collected == Array(contents[100..<350]))
    }

    @Test("a file that grows while being read throws before its last block")
    func growsWhileReading() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("f.bin", Array(repeating: 1, count: 10_000))
        var reader = try FileRegionReader(region: try FileRegion.wholeFile(at: path), blockSize: 4096)
        var block: [UInt8] = []
        var delivered = 0
        #expect(try reader.readNextBlock(into: &block))
        delivered += block.count

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()

        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 10_000, actualSize: 10_003)) {
            while try reader.readNextBlock(into: &block) {
                delivered += block.count
            }
        }
        // The last block was withheld: the bytes handed out never add up to the announced length.
        #expect(delivered < 10_000)
    }

    @Test("a file that shrinks while being read throws")
    func shrinksWhileReading() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("f.bin", Array(repeating: 1, count: 10_000))
        var reader = try FileRegionReader(region: try FileRegion.wholeFile(at: path), blockSize: 4096)
        var block: [UInt8] = []
        #expect(try reader.readNextBlock(into: &block))
        #expect(truncate(path, 5000) == 0)
        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 10_000, actualSize: 5000)) {
            while try reader.readNextBlock(into: &block) {}
        }
    }

    @Test("opening a region whose file already changed size throws, even for an empty file")
    func changedBeforeOpening() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("empty.bin", [])
        let region = try FileRegion.wholeFile(at: path)
        #expect(region.length == 0)
        try directory.file("empty.bin", [9])
        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 0, actualSize: 1)) {
            _ = try FileRegionReader(region: region)
        }
    }

    @Test("bytes sent without the reader still trigger the final size check")
    func outOfBandCompletion() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("f.bin", Array(repeating: 1, count: 100))
        var reader = try FileRegionReader(region: try FileRegion.wholeFile(at: path))
        try reader.bytesMovedOutOfBand(60)
        #expect(reader.remainingBytes == 40)
        try directory.file("f.bin", Array(repeating: 1, count: 120))
        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 100, actualSize: 120)) {
            try reader.bytesMovedOutOfBand(40)
        }
    }

    @Test("after bytes sent out of band, readNextBlock sends the rest and still checks the size")
    func outOfBandThenRead() throws {
        let directory = try TemporaryDirectory()
        let contents = pseudoRandomBytes(count: 100, seed: 14)
        let path = try directory.file("f.bin", contents)
        var reader = try FileRegionReader(region: try FileRegion.wholeFile(at: path))
        try reader.bytesMovedOutOfBand(99)
        var block: [UInt8] = []
        #expect(try reader.readNextBlock(into: &block))
        #expect(block == [contents[99]])

        var second = try FileRegionReader(region: try FileRegion.wholeFile(at: path))
        try second.bytesMovedOutOfBand(99)
        try directory.file("f.bin", contents + [0])
        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 100, actualSize: 101)) {
            _ = try second.readNextBlock(into: &block)
        }
    }

    @Test("negative offsets and regions past the file's end are refused")
    func invalidRegions() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("f.bin", Array(repeating: 1, count: 10))
        #expect(throws: HTTPWireError.localReadFailed(path: path, errno: EINVAL)) {
            _ = try FileRegionReader(region: FileRegion(path: path, offset: -1, length: 5, expectedFileSize: 10))
        }
        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 15, actualSize: 10)) {
            _ = try FileRegionReader(region: FileRegion(path: path, offset: 5, length: 10, expectedFileSize: 10))
        }
    }

    @Test("the error names the path and both sizes, and maps to curl's read error")
    func errorDescription() {
        let error = HTTPWireError.localFileChanged(path: "/tmp/a.bin", expectedSize: 10, actualSize: 12)
        #expect(error.description == "/tmp/a.bin changed size while being sent: expected 10 bytes, found 12")
        #expect(error.exitCode == 26)
    }
}

// CompressedRoutes: fixture routes whose bodies are content-coded — gzip, zlib and raw deflate, several
// gzip members, two codings in a row, an unknown coding, and the ways a compressed body goes wrong (cut
// before its trailer, a bad CRC, bytes after its end, a bomb) (edge layer, fixture server).
//
// The text compressed is `CompressedRoutes.text(count:)`, so a test compares the decoded body with it.
// Each fault keeps the HTTP framing correct: the body arrives whole, and only the coding inside is wrong,
// which is what the client's decoder must catch (RFC 9110 §8.4). The bomb is built on the fly from one
// compressed megabyte of zeros repeated; nothing is written to disk.

import CZlib
import HTTPWire
import HTTPWireCodec

/// The compressed routes; see Routes.swift for their URLs.
public enum CompressedRoutes {
    /// The `count` bytes of text behind `/compressed/{count}`: numbered lines of a pangram, compressible
    /// about ten times, as JSON and logs are.
    public static func text(count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var line = 0
        while result.count < count {
            line += 1
            result.append(contentsOf: "\(line): the quick brown fox jumps over the lazy dog\n".utf8)
        }
        return Array(result.prefix(count))
    }

    /// `text` in `coding` as `/compressed` names them, and the `Content-Encoding` value it goes out with;
    /// nil for a coding the route does not know. For tests that need compressed bytes of their own.
    public static func encoded(_ text: [UInt8], coding: String, members: Int = 1) -> (body: [UInt8], label: String)? {
        switch coding {
        case "gzip", "x-gzip": return (gzip(text, members: max(1, members)), coding)
        case "deflate": return (Deflater.compress(text, format: .zlib), coding)
        case "deflate-raw": return (Deflater.compress(text, format: .raw), "deflate")
        case "gzip,deflate": return (Deflater.compress(gzip(text, members: 1), format: .zlib), "gzip, deflate")
        case "br", "identity": return (text, coding)
        default: return nil
        }
    }

    /// `/compressed/{n}?coding=gzip&members=1&fault=&chunked=0&piece=1000`: the text of n bytes in `coding`:
    /// gzip, x-gzip, deflate (zlib), deflate-raw (sent as `deflate`), gzip,deflate (both, in that order), br
    /// or identity (the text as it is, labelled so). `members=k` makes k gzip members; `fault=truncate`
    /// drops the last 4 bytes, `fault=crc` damages the checksum, `fault=garbage` appends bytes after the end.
    /// `chunked=1` sends it in chunks of `piece` bytes. `X-Accept-Encoding` echoes what the client offered.
    static func compressed(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let count = max(0, request.segment(1).flatMap { Int($0) } ?? 1024)
        let text = Self.text(count: count)
        let coding = request.query["coding"] ?? "gzip"
        guard let (encodedBody, label) = encoded(text, coding: coding, members: request.integer("members", default: 1))
        else {
            return try await connection.respond(status: 400, body: Array("unknown coding \(coding)\n".utf8))
        }
        var body = encodedBody
        switch request.query["fault"] {
        case "truncate": body.removeLast(min(4, body.count))
        case "crc" where body.count >= 8:
            // gzip: the CRC-32 is the first half of the 8-byte trailer; zlib: the Adler-32 is the last 4 bytes.
            body[label.hasPrefix("gzip") && !label.contains(",") ? body.count - 8 : body.count - 1] ^= 0x55
        case "garbage": body.append(contentsOf: "garbage".utf8)
        default: break
        }
        let fields: HTTPFields = [
            "Content-Type": "text/plain", "Content-Encoding": label, "Vary": "Accept-Encoding",
            "ETag": "\"compressed-\(count)-\(coding)\"",
            "X-Accept-Encoding": request.head.fields["Accept-Encoding"] ?? "none",
        ]
        guard request.flag("chunked") else {
            return try await connection.respond(status: 200, fields: fields, body: body)
        }
        try await connection.sendHead(status: 200, fields: fields, framing: .chunked)
        let piece = max(1, request.integer("piece", default: 1000))
        var start = 0
        while start < body.count {
            try await connection.sendChunk(Array(body[start..<min(body.count, start + piece)]))
            start += piece
        }
        try await connection.sendLastChunk()
    }

    /// `/bomb?size=1073741824`: a valid gzip body (chunked) that decodes to `size` zero bytes (whole MiB),
    /// sent as one compressed megabyte (about 1 KiB) repeated: 1 GiB costs the server 1 MiB of data.
    static func bomb(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let megabytes = max(1, request.integer64("size", default: 1 << 30) >> 20)
        try await connection.sendHead(
            status: 200, fields: ["Content-Type": "application/octet-stream", "Content-Encoding": "gzip"],
            framing: .chunked)
        // RFC 1952 §2.3: magic 1f 8b, CM 8 (deflate), no flags, no time, no extra flags, OS 3 (Unix).
        try await connection.sendChunk([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        let (block, blockCRC) = zeroMegabyte
        var crc = blockCRC
        for index in 0..<megabytes {
            if index > 0 { crc = crc32_combine(crc, blockCRC, 1 << 20) }
            try await connection.sendChunk(block)
        }
        // The last block (an empty final one), then CRC-32 and the length modulo 2^32, little-endian.
        var tail = Deflater(format: .raw).deflate([], flush: Z_FINISH)
        let length = UInt32(truncatingIfNeeded: megabytes << 20)
        for shift in stride(from: 0, to: 32, by: 8) { tail.append(UInt8(truncatingIfNeeded: UInt32(crc) >> shift)) }
        for shift in stride(from: 0, to: 32, by: 8) { tail.append(UInt8(truncatingIfNeeded: length >> shift)) }
        try await connection.sendChunk(tail)
        try await connection.sendLastChunk()
    }

    /// 1 MiB of zeros as raw deflate ending in a full flush (byte-aligned, no reference to earlier data, so
    /// it can be repeated), and the CRC-32 of that megabyte.
    private static let zeroMegabyte: ([UInt8], UInt) = {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let block = Deflater(format: .raw, level: 9).deflate(zeros, flush: Z_FULL_FLUSH)
        let crc = zeros.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
        return (block, crc)
    }()

    /// `text` as `members` gzip members, one after the other (RFC 1952 §2.2).
    static func gzip(_ text: [UInt8], members: Int) -> [UInt8] {
        let size = (text.count + members - 1) / max(1, members)
        var result: [UInt8] = []
        var start = 0
        repeat {
            let end = min(text.count, start + max(1, size))
            result += Deflater.compress(Array(text[start..<end]), format: .gzip)
            start = end
        } while start < text.count
        return result
    }
}

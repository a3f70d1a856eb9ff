// PythonMultipartParser: test support that parses a multipart/form-data body with Python's standard
// library, an implementation that shares no code or assumptions with HTTPWire's writer.
// Tests only (Foundation's Process is fine here, through TestSupport's Subprocess, which waits off the
// cooperative pool); the library itself never runs other programs.
//
// The body is written to a temporary file and read by `email.parser.BytesParser(policy=email.policy.HTTP)`
// behind a `Content-Type: multipart/form-data; boundary=...` header, which is how Python's own HTTP
// tooling parses such bodies. The script prints JSON: every part's header names, its Content-Disposition
// parameters, its Content-Type and its payload (base64), plus any defects the parser noticed.

import Foundation
import HTTPWire
import TestSupport
import Testing

@testable import HTTPWire

/// What Python's email parser found in one body.
struct ParsedMultipartBody: Decodable {
    /// One part, as Python's parser reports it.
    struct Part: Decodable {
        var headerNames: [String]
        var disposition: String?
        var name: String?
        var filename: String?
        var contentType: String?
        var payloadBase64: String
        var defects: [String]

        var payload: [UInt8] { Array(Data(base64Encoded: payloadBase64) ?? Data()) }
    }

    var isMultipart: Bool
    var defects: [String]
    var preamble: String?
    var epilogue: String?
    var parts: [Part]
}

/// Runs Python's parser over a body and decodes its report.
enum PythonMultipartParser {
    static let script = """
        import base64, email.parser, email.policy, json, sys
        path, boundary = sys.argv[1], sys.argv[2]
        with open(path, "rb") as f:
            body = f.read()
        head = b'Content-Type: multipart/form-data; boundary="' + boundary.encode("ascii") + b'"\\r\\n\\r\\n'
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
        report = {"isMultipart": message.is_multipart(), "defects": [repr(d) for d in message.defects],
                  "preamble": message.preamble, "epilogue": message.epilogue, "parts": []}
        for part in (message.iter_parts() if message.is_multipart() else []):
            disposition = part["content-disposition"]
            params = dict(disposition.params) if disposition is not None else {}
            report["parts"].append({
                "headerNames": [name.lower() for name in part.keys()],
                "disposition": disposition.content_disposition if disposition is not None else None,
                "name": params.get("name"),
                "filename": params.get("filename"),
                "contentType": str(part["content-type"]) if "content-type" in part else None,
                "payloadBase64": base64.b64encode(part.get_payload(decode=True)).decode("ascii"),
                "defects": [repr(d) for d in part.defects],
            })
        print(json.dumps(report))
        """

    /// Writes `body` to a temporary file, parses it with Python, and returns the report. The file is
    /// written and Python waited for off the cooperative pool.
    static func parse(_ body: [UInt8], boundary: String) async throws -> ParsedMultipartBody {
        let directory = try TemporaryDirectory()
        let bodyURL = directory.url.appendingPathComponent("body.bin")
        try await DedicatedThread.run { try Data(body).write(to: bodyURL) }
        let result = try await Subprocess.run("/usr/bin/env", ["python3", "-c", script, bodyURL.path, boundary])
        try #require(result.status == 0, "python3 failed: \(result.errorText)")
        return try JSONDecoder().decode(ParsedMultipartBody.self, from: Data(result.standardOutput))
    }
}

/// A fresh directory under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpwire-multipart-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `bytes` to a file called `name` in the directory and returns its path.
    @discardableResult
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let fileURL = url.appendingPathComponent(name)
        try Data(bytes).write(to: fileURL)
        return fileURL.path
    }
}

/// Produces a whole prepared body the way the client's TLS path will: bytes as they are, file regions
/// through FileRegionReader in blocks of `blockSize` bytes.
func collectBody(_ body: PreparedMultipartBody, blockSize: Int = 64 * 1024) throws -> [UInt8] {
    var bytes: [UInt8] = []
    var reader = body.makeReader()
    var block: [UInt8] = []
    while let segment = reader.next() {
        switch segment {
        case .bytes(let segmentBytes):
            bytes.append(contentsOf: segmentBytes)
        case .file(let region):
            var fileReader = try FileRegionReader(region: region, blockSize: blockSize)
            while try fileReader.readNextBlock(into: &block) {
                bytes.append(contentsOf: block)
            }
        }
    }
    return bytes
}

/// A small seeded generator (SplitMix64) so a test can know the boundary `prepare(using:)` will draw.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Deterministic pseudo-random bytes for file contents.
func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(state: seed)
    return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
}

// ResponseCorpusArticleTests: the response corpus article quotes its fixture files exactly (docs test).
// Each quote in ResponseCorpus.md is a line "`Fixtures/responses/NAME.http`:" followed by a fenced block;
// the block must be the file's bytes with CRLF shown as a line break and the last line break left out, as
// the article says. A fixture that changes, or a quote edited by hand, fails here.

import Foundation
import Testing

@Suite struct ResponseCorpusArticleTests {
    static let root = String(#filePath.split(separator: "/Tests/HTTPWireTests/").first ?? "")

    @Test("every fixture the corpus article quotes is quoted byte for byte")
    func quotesMatchFixtures() throws {
        let article = try String(
            contentsOfFile: Self.root + "/Sources/HTTPWire/HTTPWire.docc/ResponseCorpus.md", encoding: .utf8)
        let lines = article.components(separatedBy: "\n")
        var quoted = 0
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: #/^`(Fixtures/responses/[a-z0-9-]+\.http)`:$/#) else { continue }
            try #require(index + 2 < lines.count && lines[index + 2] == "```", "no block after \(line)")
            let end = try #require(lines[(index + 3)...].firstIndex(of: "```"), "unclosed block after \(line)")
            let block = lines[(index + 3)..<end].joined(separator: "\n")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + match.output.1))
            var expected = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            while expected.hasSuffix("\n") { expected.removeLast() }
            #expect(block == expected, "\(match.output.1) is not quoted as it is:\n\(expected)")
            quoted += 1
        }
        #expect(quoted >= 8, "found only \(quoted) quoted fixtures")
    }
}

// ArticleQuotes: checks that a DocC article quotes, word for word, blocks produced by a live capture
// (test support for the Life of a request and Downloads and resuming articles).
// With HTTPWIRE_CAPTURE_OUT=FILE set, the fresh blocks are also written there, ready to paste after a
// deliberate change.

import Foundation
import Testing

enum ArticleQuotes {
    /// Records an issue for every block of `blocks` that no fenced code block of the article holds.
    static func expectQuoted(
        _ blocks: [(what: String, text: String)], inArticleAt path: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        if let output = ProcessInfo.processInfo.environment["HTTPWIRE_CAPTURE_OUT"] {
            let text = blocks.map { "<!-- \($0.what) -->\n```\n\($0.text)\n```\n" }.joined(separator: "\n")
            try Data(text.utf8).write(to: URL(fileURLWithPath: output))
        }
        let article = try String(contentsOfFile: path, encoding: .utf8)
        let quoted = fencedBlocks(in: article)
        let name = URL(fileURLWithPath: path).lastPathComponent
        for block in blocks {
            #expect(
                quoted.contains(block.text), "\(name) does not quote \(block.what):\n\(block.text)",
                sourceLocation: sourceLocation)
        }
    }

    /// The contents of every fenced code block of a Markdown file.
    static func fencedBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                if let finished = current {
                    blocks.append(finished.joined(separator: "\n"))
                    current = nil
                } else {
                    current = []
                }
            } else if current != nil {
                current?.append(String(line))
            }
        }
        return blocks
    }
}

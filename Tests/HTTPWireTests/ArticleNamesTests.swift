// ArticleNamesTests: every file, folder, type and function an article names in code voice still exists
// (docs test). DocC already fails the build on a broken ``Symbol`` link, but most of what the articles name
// is not public — `Exchange`, `HTTPWire/Pool/ConnectionPool.swift`, `ReactorTimer`, `lease(for:deadline:)` —
// and plain `code` is not checked by DocC. So this suite reads README.md, CHANGELOG.md and every .docc
// article, and for each `code span`:
// - a path (`HTTPWire/Exchange/Exchange.swift`, `Tests/HTTPWireTests/`, `docs/api.txt`) must exist, relative
//   to Sources/ or to the repository;
// - a type name (`UpperCamelCase`, alone or before `.member`) must be declared in Sources/ or Tests/, or be
//   one of the standard library's and Foundation's that the articles mention (`knownElsewhere`);
// - a function with argument labels (`lease(for:deadline:)`, `Reactor.sleep(until:)`) must be declared
//   with those labels.
// Rename or delete something an article names and this fails until the article is updated.

import Foundation
import TestSupport
import Testing

@Suite struct ArticleNamesTests {
    static let root = String(#filePath.split(separator: "/Tests/HTTPWireTests/").first ?? "")

    /// Names the articles use that HTTPWire does not declare: Swift's, Foundation's, Glibc's, OpenSSL's.
    static let knownElsewhere: Set<String> = [
        "AsyncSequence", "AsyncStream", "CancellationError", "CheckedContinuation", "Codable", "Data", "Date",
        "Decodable", "Encodable", "Foundation", "FoundationEssentials", "FoundationNetworking", "JSONDecoder",
        "JSONEncoder", "Sendable", "String", "Synchronization", "Task", "TaskExecutor", "URL", "URLSession",
        "Glibc", "Int", "Int64", "UInt8", "Array", "Duration", "ContinuousClock", "Mutex", "HTTPWire",
        "HTTPWireCodec", "HTTPWireTransport", "COpenSSL", "CSystem", "Package", "SIGKILL", "SIGPIPE", "EPIPE",
        "EAGAIN", "EINTR", "EBADF", "EFAULT", "EBUSY", "ENOSPC", "EACCES", "EROFS", "ESPIPE", "EPERM",
        "ECONNREFUSED", "ECONNRESET", "ENETUNREACH", "EHOSTUNREACH", "EINPROGRESS", "TCP_NODELAY", "SO_ERROR",
        "MSG_NOSIGNAL", "MSG_PEEK", "MSG_DONTWAIT", "MSG_TRUNC", "AI_NUMERICHOST", "SSL_read", "SSL_write",
        "SSL_read_ex", "SSL_write_ex", "CURLE_OBSOLETE32", "Examples", "RunExample", "HTTPWireTesting", "URLProtocol",
        "URLCache", "EventSource", "AsyncBytes",
        // HTTP field names and values the articles quote.
        "Range", "Host", "ETag", "Trailer", "Cookie", "Upgrade", "Authorization", "SameSite", "Location", "Connection",
        "Age", "Vary",
        // Cookie attribute names (RFC 6265 §5.2).
        "Expires", "Domain", "Path", "Secure", "HttpOnly",
    ]

    /// The Markdown files whose code spans are checked.
    static func articles() throws -> [String] {
        var files = ["README.md", "CHANGELOG.md"]
        for catalog in ["Sources/HTTPWire/HTTPWire.docc", "Sources/HTTPWireCodec/HTTPWireCodec.docc"] {
            files += try FileManager.default.contentsOfDirectory(atPath: root + "/" + catalog)
                .filter { $0.hasSuffix(".md") }.sorted().map { catalog + "/" + $0 }
        }
        return files
    }

    /// The `code spans` of a Markdown text outside fenced blocks (``symbol links`` excluded: DocC checks them).
    static func codeSpans(in markdown: String) -> [String] {
        var spans: [String] = []
        var isFenced = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                isFenced.toggle()
                continue
            }
            guard !isFenced else { continue }
            let parts = line.replacingOccurrences(of: "``", with: "\u{1}").split(
                separator: "`", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() where index % 2 == 1 && !part.contains("\u{1}") {
                spans.append(String(part))
            }
        }
        return spans
    }

    /// All Swift source text of the package, once.
    static let swiftSources: String = {
        var text = ""
        for folder in ["Sources", "Tests"] {
            let enumerator = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".swift"),
                    let source = try? String(contentsOfFile: root + "/" + folder + "/" + path, encoding: .utf8)
                {
                    text += source + "\n"
                }
            }
        }
        return text
    }()

    /// Every name a `struct`, `enum`, `class`, `protocol`, `actor`, `typealias` or `extension` declares (each
    /// component of `extension ConnectionPool.Lease`), collected in one pass: a regular expression per name
    /// over the whole source took a minute on a loaded machine.
    static let declaredTypes: Set<String> = {
        let keywords: Set<Substring> = ["struct", "enum", "class", "protocol", "actor", "typealias", "extension"]
        var names: Set<String> = []
        let words = swiftSources.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        for (index, word) in words.enumerated() where keywords.contains(word) && index + 1 < words.count {
            let declared = words[index + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
            for component in declared.split(separator: ".") { names.insert(String(component)) }
        }
        return names
    }()

    /// The source split into lines, for finding a function's declaration.
    static let sourceLines: [Substring] = swiftSources.split(separator: "\n", omittingEmptySubsequences: false)

    static func isDeclared(type name: String) -> Bool {
        knownElsewhere.contains(name) || declaredTypes.contains(name)
    }

    static func isDeclared(function name: String, labels: [String]) -> Bool {
        // func name(label ..., label ...) or init: the labels in order, each followed by a space or a colon; an
        // article may leave out trailing parameters that have defaults (`post(_:json:)`).
        let labelPattern = labels.map { NSRegularExpression.escapedPattern(for: $0) + #"[ :][^,)]*"# }
            .joined(separator: #",\s*"#)
        let keyword = name == "init" ? "init" : #"func\s+"# + NSRegularExpression.escapedPattern(for: name)
        let pattern = keyword + #"(<[^>]*>)?\(\s*"# + labelPattern + #"\s*[,)]"#
        // Only the lines that start such a declaration are searched, each with the next four lines (a long
        // signature wraps).
        let needle = name == "init" ? "init" : "func " + name
        for (index, line) in sourceLines.enumerated() where line.contains(needle) {
            let chunk = sourceLines[index..<min(sourceLines.count, index + 5)].joined(separator: "\n")
            if chunk.range(of: pattern, options: .regularExpression) != nil { return true }
        }
        return false
    }

    static func exists(path: String) -> Bool {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return FileManager.default.fileExists(atPath: root + "/Sources/" + trimmed)
            || FileManager.default.fileExists(atPath: root + "/" + trimmed)
    }

    /// What is wrong with one code span, or nil.
    static func problem(with span: String) -> String? {
        let pathPattern = #"^[A-Za-z][\w.+-]*(/[\w.+@-]+)+/?$"#
        if span.range(of: pathPattern, options: .regularExpression) != nil, !span.contains("://") {
            // A path: a file or a folder; skip MIME types such as multipart/form-data (no such top folder).
            let first = String(span.prefix { $0 != "/" })
            let isProjectPath = exists(path: first) || ["Tests", "Fixtures", "docs", "Sources"].contains(first)
            guard isProjectPath else { return nil }
            return exists(path: span) ? nil : "no file or folder \(span)"
        }
        // Type.member(labels:) or function(labels:)
        let function = #"^(?:([A-Z][A-Za-z0-9]*)\.)?([a-z][A-Za-z0-9]*|init)\(((?:[a-zA-Z_][A-Za-z0-9]*:)+)\)$"#
        if let match = span.range(of: function, options: .regularExpression), match == span.startIndex..<span.endIndex {
            let open = span.firstIndex(of: "(")!
            let head = span[..<open]
            let name = String(head.split(separator: ".").last ?? "")
            let labels = span[span.index(after: open)..<span.index(before: span.endIndex)].split(separator: ":").map(
                String.init)
            if let dot = head.firstIndex(of: "."), !isDeclared(type: String(head[..<dot])) {
                return "no type \(head[..<dot])"
            }
            return isDeclared(function: name, labels: labels) ? nil : "no function \(span)"
        }
        // A type alone or before members: `Exchange`, `ConnectionPool.Lease`, `Reactor.shared`.
        let type = #"^([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)(\.[A-Za-z][A-Za-z0-9]*)*(\(\))?$"#
        if span.range(of: type, options: .regularExpression) != nil {
            let name = String(span.prefix { $0.isLetter || $0.isNumber })
            return isDeclared(type: name) ? nil : "no type \(name)"
        }
        return nil
    }

    @Test("every file, folder, type and function the articles name in code voice exists", .timeLimit(.scaledMinutes(1)))
    func namedThingsExist() throws {
        var checked = 0
        for article in try Self.articles() {
            let text = try String(contentsOfFile: Self.root + "/" + article, encoding: .utf8)
            for span in Self.codeSpans(in: text) {
                checked += 1
                if let problem = Self.problem(with: span) {
                    Issue.record("\(article): `\(span)`: \(problem)")
                }
            }
        }
        #expect(checked > 300, "only \(checked) code spans found: is the scan still reading the articles?")
    }

    @Test("the checks can fail: a renamed file, type or function is reported")
    func checksCanFail() {
        #expect(Self.problem(with: "HTTPWire/Exchange/Exchange.swift") == nil)
        #expect(Self.problem(with: "HTTPWire/Exchange/NoSuchFile.swift") != nil)
        #expect(Self.problem(with: "ExchangeStateMachine") == nil)
        #expect(Self.problem(with: "ExchangeStateMachineThatIsGone") != nil)
        #expect(Self.problem(with: "ConnectionPool.lease(for:deadline:)") == nil)
        #expect(Self.problem(with: "ConnectionPool.lease(for:deadlines:)") != nil)
        #expect(Self.problem(with: "multipart/form-data") == nil)
    }

    @Test("the CLI's version is the newest release in the changelog")
    func versionMatchesChangelog() throws {
        let help = try String(contentsOfFile: Self.root + "/Sources/wire/Help.swift", encoding: .utf8)
        let version = try #require(
            help.firstMatch(of: #/static let version = "([0-9]+\.[0-9]+\.[0-9]+)"/#)?.output.1)
        let changelog = try String(contentsOfFile: Self.root + "/CHANGELOG.md", encoding: .utf8)
        let newest = try #require(changelog.firstMatch(of: #/\n## \[([0-9]+\.[0-9]+\.[0-9]+)\]/#)?.output.1)
        #expect(version == newest, "wire says \(version), the newest release in CHANGELOG.md is \(newest)")
    }
}

// Arguments: turns wire's command line into a ParsedCommand (edge layer).
// Parsing only: no network, no files opened. Options may come before or after the URLs, as with curl,
// and every mistake is a UsageError (exit 2) with one line saying what was wrong.

/// A command-line mistake: wire prints `wire: error: <message>` and exits 2, as curl does for bad usage.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The subcommands of wire.
enum CommandName: String, CaseIterable {
    case get, head, post, put, delete, upload, download, serve, demo
}

/// One `-F` form part: `name=value`, or `name=@path` with optional `;type=` and `;filename=`.
struct FormArgument: Equatable {
    var name: String
    var value: String?
    var path: String?
    var contentType: String?
    var fileName: String?
}

/// Where a request body comes from.
enum BodyArgument: Equatable {
    case json(String)
    case text(String)
    case file(String)
}

/// Everything the command line said, checked for shape but not yet acted on.
struct ParsedCommand: Equatable {
    var command: CommandName
    var urls: [String] = []
    var headers: [(name: String, value: String)] = []
    var output: String?
    var include = false
    var verbose = false
    var fail = false
    var timeoutSeconds: Double?
    var connectTimeoutSeconds: Double?
    var caFile: String?
    var maxRedirects = 10
    var progress: Bool?
    var parallel = 1
    var body: BodyArgument?
    var form: [FormArgument] = []
    var directory: String?
    var restart = false
    var sha256: String?
    var retries = 0
    var port = 0
    var tls = false
    var log = false
    var serveDirectory: String?
    var wantsHelp = false

    init(command: CommandName) { self.command = command }

    static func == (left: ParsedCommand, right: ParsedCommand) -> Bool {
        left.command == right.command && left.urls == right.urls
            && left.headers.map { [$0.name, $0.value] } == right.headers.map { [$0.name, $0.value] }
            && left.output == right.output && left.include == right.include && left.verbose == right.verbose
            && left.fail == right.fail && left.timeoutSeconds == right.timeoutSeconds
            && left.connectTimeoutSeconds == right.connectTimeoutSeconds && left.caFile == right.caFile
            && left.maxRedirects == right.maxRedirects && left.progress == right.progress
            && left.parallel == right.parallel && left.body == right.body && left.form == right.form
            && left.directory == right.directory && left.restart == right.restart && left.sha256 == right.sha256
            && left.retries == right.retries && left.port == right.port && left.tls == right.tls
            && left.log == right.log && left.serveDirectory == right.serveDirectory
            && left.wantsHelp == right.wantsHelp
    }
}

/// The parser. `parse(["get", "-i", "http://x/"])` gives a ParsedCommand or throws UsageError.
enum Arguments {
    static func parse(_ words: [String]) throws(UsageError) -> ParsedCommand {
        guard let first = words.first else { throw UsageError(message: "no command given (try wire --help)") }
        guard let name = CommandName(rawValue: first) else {
            throw UsageError(message: "unknown command \"\(first)\" (try wire --help)")
        }
        var parsed = ParsedCommand(command: name)
        var index = 1
        func value(for option: String) throws(UsageError) -> String {
            index += 1
            guard index < words.count else { throw UsageError(message: "option \(option) needs a value") }
            return words[index]
        }
        while index < words.count {
            let word = words[index]
            switch word {
            case "-h", "--help": parsed.wantsHelp = true
            case "-H", "--header":
                let header = try value(for: word)
                guard let colon = header.firstIndex(of: ":") else {
                    throw UsageError(message: "header \"\(header)\" is not \"Name: value\"")
                }
                let name = String(header[..<colon])
                let rest = header[header.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                parsed.headers.append((name, String(rest)))
            case "-o", "--output": parsed.output = try value(for: word)
            case "-i", "--include": parsed.include = true
            case "-v", "--verbose": parsed.verbose = true
            case "--fail", "-f": parsed.fail = true
            case "--timeout", "-m", "--max-time": parsed.timeoutSeconds = try seconds(try value(for: word), word)
            case "--connect-timeout": parsed.connectTimeoutSeconds = try seconds(try value(for: word), word)
            case "--cacert": parsed.caFile = try value(for: word)
            case "--max-redirects": parsed.maxRedirects = try count(try value(for: word), word)
            case "--progress": parsed.progress = true
            case "--no-progress": parsed.progress = false
            case "--parallel": parsed.parallel = max(1, try count(try value(for: word), word))
            case "--json": parsed.body = .json(try value(for: word))
            case "--data", "-d":
                let text = try value(for: word)
                parsed.body = text.hasPrefix("@") ? .file(String(text.dropFirst())) : .text(text)
            case "-F", "--form": parsed.form.append(try form(try value(for: word)))
            case "--dir": parsed.directory = try value(for: word)
            case "--restart": parsed.restart = true
            case "--sha256": parsed.sha256 = try value(for: word)
            case "--retry": parsed.retries = try count(try value(for: word), word)
            case "--port": parsed.port = try count(try value(for: word), word)
            case "--tls": parsed.tls = true
            case "--log": parsed.log = true
            default:
                if word.hasPrefix("-") && word.count > 1 {
                    throw UsageError(message: "unknown option \(word) for wire \(name.rawValue)")
                }
                if name == .serve {
                    guard parsed.serveDirectory == nil else {
                        throw UsageError(message: "wire serve takes one directory")
                    }
                    parsed.serveDirectory = word
                } else {
                    parsed.urls.append(word)
                }
            }
            index += 1
        }
        try check(parsed)
        return parsed
    }

    /// Rules that depend on the command rather than on one option.
    private static func check(_ parsed: ParsedCommand) throws(UsageError) {
        if parsed.wantsHelp { return }
        switch parsed.command {
        case .serve, .demo:
            return
        case .get:
            guard !parsed.urls.isEmpty else { throw UsageError(message: "wire get needs at least one URL") }
        case .head, .post, .put, .delete, .upload, .download:
            guard parsed.urls.count == 1 else {
                throw UsageError(message: "wire \(parsed.command.rawValue) takes exactly one URL")
            }
        }
        if parsed.command == .upload && parsed.form.isEmpty {
            throw UsageError(message: "wire upload needs at least one -F part")
        }
        if parsed.output != nil && parsed.directory != nil {
            throw UsageError(message: "use either -o or --dir, not both")
        }
        if let hex = parsed.sha256, hex.count != 64 || !hex.allSatisfy(\.isHexDigit) {
            throw UsageError(message: "--sha256 needs 64 hexadecimal digits")
        }
    }

    private static func seconds(_ text: String, _ option: String) throws(UsageError) -> Double {
        guard let number = Double(text), number > 0, number.isFinite else {
            throw UsageError(message: "option \(option) needs a positive number of seconds, not \"\(text)\"")
        }
        return number
    }

    private static func count(_ text: String, _ option: String) throws(UsageError) -> Int {
        guard let number = Int(text), number >= 0 else {
            throw UsageError(message: "option \(option) needs a whole number, not \"\(text)\"")
        }
        return number
    }

    /// `-F name=value` or `-F name=@path;type=image/png;filename=a.png` (curl's syntax).
    private static func form(_ text: String) throws(UsageError) -> FormArgument {
        guard let equals = text.firstIndex(of: "=") else {
            throw UsageError(message: "form part \"\(text)\" is not name=value or name=@file")
        }
        let name = String(text[..<equals])
        let rest = String(text[text.index(after: equals)...])
        guard rest.hasPrefix("@") else { return FormArgument(name: name, value: rest) }
        var pieces = rest.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        var part = FormArgument(name: name, path: pieces.removeFirst())
        for piece in pieces {
            if piece.hasPrefix("type=") {
                part.contentType = String(piece.dropFirst(5))
            } else if piece.hasPrefix("filename=") {
                part.fileName = String(piece.dropFirst(9))
            } else {
                throw UsageError(message: "unknown form attribute \"\(piece)\" (type= or filename=)")
            }
        }
        if part.path?.isEmpty ?? true { throw UsageError(message: "form part \(name) names no file after @") }
        return part
    }
}

// Arguments: turns wire's command line into an Invocation — print the version, print help, or run a
// ParsedCommand (edge layer). Parsing only: no network, no files opened. Options may come before or after
// the URLs, as with curl; `--name=value` and `--name value` both work; `--` ends the options. Every mistake
// is a UsageError (exit 2) whose one-line message says what was wrong.

import HTTPWire
import HTTPWireCodec

/// A command-line mistake. wire prints `wire: error: <message>`, then a line pointing at the right help
/// text when `suggestsHelp` is set, and exits 2 as curl does for bad usage.
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// One line, whatever words it quotes: control characters (C0, DEL, C1) are shown escaped.
    let message: String
    /// The command whose `--help` the hint names; nil names the top-level `wire --help`.
    var command: CommandName?
    /// False for a mistake the help text cannot fix (for example a command that is not implemented yet).
    var suggestsHelp = true
    var description: String { message }

    /// A mistake whose message may quote the user's words as they are. Those words come from scripts,
    /// file names and server output, so a CR or LF in one would break `wire: error: …` into several lines
    /// and an ESC would reach the terminal as an escape sequence: each control character becomes its Swift
    /// escape (`\r`, `\n`, `\u{1B}`), and the message stays one printable line.
    init(message: String, command: CommandName? = nil, suggestsHelp: Bool = true) {
        var escaped = ""
        for scalar in message.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                escaped += scalar.escaped(asASCII: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        self.message = escaped
        self.command = command
        self.suggestsHelp = suggestsHelp
    }
}

/// What the command line asks wire to do.
enum Invocation: Equatable {
    /// `wire --version`.
    case version
    /// `wire --help`, `wire help [COMMAND]`, or `--help` anywhere after a command.
    case help(CommandName?)
    /// A command to run.
    case run(ParsedCommand)
}

/// The parser. `Arguments.parse(["get", "-i", "http://x/"])` is `.run(...)` or throws UsageError.
enum Arguments {
    static func parse(_ words: [String]) throws(UsageError) -> Invocation {
        guard let first = words.first else { throw UsageError(message: "no command given") }
        switch first {
        case "--version", "-V":
            guard words.count == 1 else { throw UsageError(message: "\(first) takes no arguments") }
            return .version
        case "help", "--help", "-h":
            guard words.count <= 2 else { throw UsageError(message: "\(first) takes at most one command") }
            return .help(try words.dropFirst().first.map(commandName))
        default:
            let command = try commandName(first)
            let rest = Array(words.dropFirst())
            // Help wins over every other mistake on the line: `wire get --bogus --help` shows get's help.
            if rest.prefix(while: { $0 != "--" }).contains(where: { CommandOption.help.spellings.contains($0) }) {
                return .help(command)
            }
            var parser = CommandParser(command: command, words: rest)
            return try parser.parse()
        }
    }

    private static func commandName(_ word: String) throws(UsageError) -> CommandName {
        if let name = CommandName(rawValue: word) { return name }
        if word.hasPrefix("-") {
            guard CommandOption.named(String(word.prefix { $0 != "=" })) != nil else {
                throw UsageError(message: "unknown option \(word)")
            }
            throw UsageError(message: "option \(word) must come after a command, as in wire get \(word) URL")
        }
        throw UsageError(message: "unknown command \"\(word)\"")
    }
}

/// The options and operands after a command name, read left to right.
struct CommandParser {
    let command: CommandName
    let words: [String]
    var index = 0
    var parsed: ParsedCommand
    /// Set when the parser meets `--help` itself: `Arguments.parse` looks for it only before the first `--`,
    /// and a `--` that an option takes as its value (`-c -- -h`, a cookie jar named "--") ends nothing.
    var helpRequested = false

    init(command: CommandName, words: [String]) {
        self.command = command
        self.words = words
        self.parsed = ParsedCommand(command: command)
    }

    /// `.run` with the parsed command, or `.help` when a help option comes before any mistake.
    mutating func parse() throws(UsageError) -> Invocation {
        var operands: [String] = []
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" {
                operands += words[index...]
                break
            }
            // "-" alone is an operand (curl's name for standard input/output), not an option.
            guard word.hasPrefix("-") && word.count > 1 else {
                operands.append(word)
                continue
            }
            try apply(word)
            if helpRequested { return .help(command) }
        }
        try takeOperands(operands)
        try check()
        return .run(parsed)
    }

    func error(_ message: String) -> UsageError { UsageError(message: message, command: command) }

    /// Reads one option (and its value) into `parsed`: `--name`, `--name=value`, `-x`, or a cluster of
    /// short options as curl reads them (`-fsSL`; `-sSo FILE`; `-XPATCH`): each letter is an option, and
    /// the first that takes a value takes the rest of the word, or the next word when nothing is left.
    private mutating func apply(_ word: String) throws(UsageError) {
        if word.hasPrefix("--") {
            // `--timeout=5` is `--timeout 5`.
            guard let equals = word.firstIndex(of: "=") else { return try apply(word, attached: nil) }
            return try apply(String(word[..<equals]), attached: String(word[word.index(after: equals)...]))
        }
        var letters = word.dropFirst()
        while let letter = letters.popFirst() {
            let spelling = "-" + String(letter)
            guard let option = CommandOption.named(spelling, for: command) else {
                throw error(word.count > 2 ? "unknown option \(spelling) in \(word)" : "unknown option \(spelling)")
            }
            if option.valueName != nil && !letters.isEmpty {
                return try apply(spelling, attached: String(letters))
            }
            try apply(spelling, attached: nil)
        }
    }

    /// Reads the option spelled `spelling` into `parsed`; its value is `attached` when the word carried
    /// it (`--name=value`, `-oFILE`), else the next word.
    private mutating func apply(_ spelling: String, attached: String?) throws(UsageError) {
        guard let option = CommandOption.named(spelling, for: command) else {
            throw error("unknown option \(spelling)")
        }
        guard option.commands.contains(command) else {
            throw error("option \(spelling) does not apply to wire \(command.rawValue)")
        }
        func value() throws(UsageError) -> String {
            if let attached { return attached }
            guard index < words.count else { throw error("option \(spelling) needs a value") }
            index += 1
            return words[index - 1]
        }
        if option.valueName == nil && attached != nil { throw error("option \(spelling) takes no value") }
        switch option {
        case .header: parsed.headers.append(try header(try value()))
        case .output:
            // curl's -o - is standard output, where the body goes anyway without -o.
            let path = try value()
            if path == "-" && command == .download {
                throw error("wire download saves to a file; wire get writes a body to standard output")
            }
            parsed.output = path == "-" ? nil : path
        case .include: parsed.include = true
        case .verbose: parsed.verbose = true
        case .fail: parsed.fail = true
        case .failWithBody: parsed.failWithBody = true
        case .http11: break  // the only version wire speaks
        case .compressed: parsed.compressed = true
        case .timeout: parsed.timeoutSeconds = try seconds(try value(), spelling)
        case .connectTimeout: parsed.connectTimeoutSeconds = try seconds(try value(), spelling)
        case .caFile: parsed.caFile = try value()
        case .maxRedirects: parsed.maxRedirects = try number(try value(), spelling, in: 0...Int.max)
        case .progress: parsed.progress = true
        case .noProgress: parsed.progress = false
        case .parallel: parsed.parallel = try number(try value(), spelling, in: 1...Int.max)
        case .json: try setBody(.json(try value()))
        case .data:
            let text = try value()
            if text.hasPrefix("@") {
                try setBody(.file(String(text.dropFirst())))
            } else {
                parsed.dataPieces.append(text)
            }
        case .dataURLEncode: parsed.dataPieces.append(try urlEncodedData(try value()))
        case .dataRaw: parsed.dataPieces.append(try value())
        case .uploadFile: try setBody(.upload(try value()))
        case .get: parsed.dataInQuery = true
        case .request: parsed.method = try methodToken(try value())
        case .headOnly: parsed.command = .head
        case .location: break  // redirects are followed by default; --max-redirects 0 turns them off
        case .writeOut:
            let format = try value()
            do throws(WriteOutError) {
                parsed.writeOut = try WriteOut.parse(format)
            } catch {
                throw self.error(error.message)
            }
        case .user:
            let text = try value()
            guard let colon = text.firstIndex(of: ":") else {
                // curl would prompt for the password; wire never reads the terminal.
                throw error("-u needs USER:PASSWORD (wire does not prompt for a password)")
            }
            parsed.user = (String(text[..<colon]), String(text[text.index(after: colon)...]))
        case .form: parsed.form.append(try form(try value()))
        case .directory: parsed.directory = try value()
        case .restart: parsed.restart = true
        case .sha256: parsed.sha256 = try sha256(try value())
        case .retry: parsed.retries = try number(try value(), spelling, in: 0...Int.max)
        case .limitRate:
            parsed.limitRate = try byteCount(try value(), for: "--limit-rate", example: "a rate such as 500K or 2M")
        case .maxFileSize:
            parsed.maxFileSize = try byteCount(try value(), for: "--max-filesize", example: "a size such as 500K or 2G")
        case .segments: parsed.segments = try number(try value(), spelling, in: 1...64)
        case .segmentProbe:
            let text = try value()
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw error("option \(spelling) needs a number of seconds from 0 to 3600, not \"\(text)\"")
            }
            parsed.segmentProbeSeconds = seconds
        case .inputFile: parsed.inputFile = try value()
        case .port: parsed.port = try number(try value(), spelling, in: 0...65535)
        case .tls: parsed.tls = true
        case .log: parsed.log = true
        case .proxy: parsed.proxy = try value()
        case .noProxy: parsed.noProxy = try value()
        case .proxyUser: parsed.proxyUser = ParsedCommand.splitCredentials(try value())
        case .pinnedPublicKey:
            let text = try value()
            guard PublicKeyPin.list(text) != nil else {
                throw error("--pinnedpubkey needs sha256//BASE64 pins (the base64 of 32 bytes), separated by ;")
            }
            parsed.pinnedPublicKeys = text
        // curl's rule: a value with `=` is cookies to send, anything else names a cookie file.
        case .cookie: parsed.cookies.append(try value())
        case .cookieJar: parsed.cookieJarPath = try value()
        case .silent: parsed.silent = true
        case .showError: parsed.showError = true
        case .insecure: parsed.insecure = true
        case .userAgent: parsed.userAgent = try value()
        case .referer: parsed.referer = try value()
        case .remoteName: parsed.remoteName = true
        case .createDirs: parsed.createDirs = true
        case .dumpHeader: parsed.dumpHeader = try value()
        case .netrc: parsed.netrc = parsed.netrc ?? .home
        case .netrcFile: parsed.netrc = .file(try value())
        case .continueAt:
            // curl's -C OFFSET would splice the file onto bytes nobody checked; wire resumes only with a
            // validator (If-Range), from the bytes on disk, which is what -C - asks for.
            guard try value() == "-" else { throw error("-C takes only - (resume from the bytes on disk)") }
            parsed.continueAt = true
        case .retryDelay:
            let text = try value()
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw error("option \(spelling) needs a number of seconds from 0 to 3600, not \"\(text)\"")
            }
            parsed.retryDelaySeconds = seconds
        case .resolve:
            let (key, addresses) = try resolveEntry(try value())
            parsed.resolve[key] = addresses
        case .digest: parsed.digest = true
        case .basic: parsed.digest = false
        // The last of -4 and -6 wins, as in curl.
        case .parallelFlag: parsed.parallelFlag = true
        case .failEarly: parsed.failEarly = true
        case .noBuffer: parsed.noBuffer = true
        case .parallelMax: parsed.parallelMax = try number(try value(), spelling, in: 1...300)
        case .range:
            let text = try value()
            // curl's forms: 0-499, 500-, -500, and lists of them (a server may answer with one part or all).
            guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2C }),
                text.contains("-")
            else { throw error("-r needs a byte range such as 0-499, 500- or -500, not \"\(text)\"") }
            parsed.range = text
        case .oauth2Bearer: parsed.bearerToken = try value()
        case .cert: parsed.clientCertificate = try value()
        case .key: parsed.clientKey = try value()
        case .ipv4: parsed.ipVersion = 4
        case .ipv6: parsed.ipVersion = 6
        case .connectTo:
            let (key, target) = try connectToEntry(try value())
            parsed.connectTo[key] = target
        case .unixSocket:
            let path = try value()
            guard !path.isEmpty else { throw error("--unix-socket needs the path of a socket file") }
            parsed.unixSocket = path
        // Usually answered by Arguments.parse before a CommandParser exists; see `helpRequested`.
        case .help: helpRequested = true
        }
    }

    /// URLs for request commands, the directory for `serve`, nothing for `demo`.
    private mutating func takeOperands(_ operands: [String]) throws(UsageError) {
        switch command {
        case .get:
            guard !operands.isEmpty else { throw error("wire get needs at least one URL") }
            parsed.urls = operands
        case .download:
            guard !operands.isEmpty || parsed.inputFile != nil else {
                throw error("wire download needs at least one URL (or -i FILE)")
            }
            parsed.urls = operands
        case .head, .post, .put, .delete, .upload:
            guard operands.count == 1 else {
                throw error("wire \(command.rawValue) takes exactly one URL, not \(operands.count)")
            }
            parsed.urls = operands
        case .serve:
            guard operands.count <= 1 else { throw error("wire serve takes at most one directory") }
            parsed.serveDirectory = operands.first
        case .demo:
            guard operands.isEmpty else { throw error("wire demo takes no arguments") }
        }
    }

    /// Rules that depend on more than one option.
    private mutating func check() throws(UsageError) {
        // -Z: curl's parallel flag, with --parallel-max's limit (curl's default 50); an explicit --parallel N wins.
        if parsed.parallelFlag && parsed.parallel == 1 { parsed.parallel = parsed.parallelMax ?? 50 }
        // -r: a Range field, unless -H gave one (the more explicit of the two).
        if let range = parsed.range, !parsed.headers.contains(where: { $0.name.lowercased() == "range" }) {
            parsed.headers.append(HeaderArgument(name: "Range", value: "bytes=" + range))
        }
        if parsed.bearerToken != nil && parsed.userName != nil {
            throw error("use either -u or --oauth2-bearer, not both")
        }
        if !parsed.dataPieces.isEmpty {
            if case .file? = parsed.body { throw error("-d @FILE cannot be combined with other -d data") }
            if case .json? = parsed.body { throw error("give one body: --json or --data, once") }
            if case .upload? = parsed.body { throw error("give one body: -T or --data, not both") }
            if !parsed.dataInQuery { parsed.body = .text(parsed.dataPieces.joined(separator: "&")) }
        }
        if command == .get && parsed.command == .get && parsed.body != nil && !parsed.dataInQuery {
            throw error("wire get sends no body: add -G to put the -d data in the query, or use wire post")
        }
        if parsed.dataInQuery, case .file? = parsed.body { throw error("-G cannot put -d @FILE in the query") }
        if command == .upload && parsed.form.isEmpty { throw error("wire upload needs at least one -F part") }
        if (command == .post || command == .put) && !parsed.form.isEmpty {
            guard parsed.body == nil && parsed.dataPieces.isEmpty else {
                throw error("give one body: -F parts, or --data, --json or -T")
            }
            // A multipart body is what `wire upload` sends; the method stays the command's unless -X says.
            parsed.method = parsed.method ?? command.rawValue.uppercased()
            parsed.command = .upload
        }
        if parsed.output != nil && parsed.directory != nil { throw error("use either -o or --dir, not both") }
        if parsed.remoteName {
            if parsed.output != nil { throw error("use either -o or -O, not both") }
            // curl wants one -O per URL; wire download saves many URLs, each under its own name.
            if parsed.urls.count > 1 { throw error("-O saves one URL; for several, use wire download URL...") }
        }
        if parsed.continueAt && parsed.restart { throw error("use either -C - or --restart, not both") }
        if parsed.fail && parsed.failWithBody { throw error("use either -f or --fail-with-body, not both") }
        if parsed.clientKey != nil && parsed.clientCertificate == nil { throw error("--key needs --cert") }
        if parsed.digest && parsed.user == nil { throw error("--digest needs -u USER:PASSWORD") }
        if parsed.port != 0 && parsed.unixSocket != nil { throw error("use either --port or --unix-socket, not both") }
        if parsed.silent && parsed.progress == nil { parsed.progress = false }
    }

    private mutating func setBody(_ body: BodyArgument) throws(UsageError) {
        guard parsed.body == nil else { throw error("give one body: --json, --data or -T, once") }
        parsed.body = body
    }
}

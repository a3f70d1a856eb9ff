// Netrc: wire's `-n/--netrc` and `--netrc-file FILE` — user names and passwords for hosts, read from the
// `.netrc` file that ftp, curl and git share (edge layer). The file is parsed here; the credentials go on
// the wire through a middleware that runs for every hop, so a redirect to another host gets that host's
// entry (or none), never the first host's.
//
// The format (ftp(1), as curl reads it): whitespace-separated tokens. `machine NAME` starts an entry for a
// host, `default` an entry for any host not named (curl only looks at it when no machine matched); inside
// an entry `login NAME` and `password TEXT` give the credentials and `account TEXT` is ignored. `macdef
// NAME` starts a macro that runs to the next empty line and is skipped. A token may be double-quoted, with
// `\"`, `\\`, `\n`, `\r` and `\t` escapes (curl 7.84's rule), so a password may hold spaces.
//
// Precedence, as curl's: credentials the request already carries (`-u`, `user:password@` in the URL, a
// `-H Authorization`) win, and the file only fills in what is missing.

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// The entries of a `.netrc` file.
///
/// ```swift
/// let netrc = Netrc(parsing: "machine api.example.test login ada password \"s3cret pass\"")
/// netrc.credentials(forHost: "api.example.test")   // ("ada", "s3cret pass")
/// ```
struct Netrc: Sendable, Equatable {
    /// One `machine` (or `default`, with a nil host) entry.
    struct Entry: Sendable, Equatable {
        var host: String?
        var login: String?
        var password: String?
    }

    var entries: [Entry] = []

    /// The entries of `text`; tokens it does not know are skipped, as ftp and curl skip them.
    init(parsing text: String) {
        var tokens = Self.tokens(of: text)[...]
        var current: Entry?
        while let token = tokens.popFirst() {
            switch token {
            case .word("machine"):
                if let current { entries.append(current) }
                guard case .word(let host)? = tokens.popFirst() else { return }
                current = Entry(host: host.lowercased())
            case .word("default"):
                if let current { entries.append(current) }
                current = Entry(host: nil)
            case .word("login"):
                if case .word(let login)? = tokens.popFirst() { current?.login = login }
            case .word("password"):
                if case .word(let password)? = tokens.popFirst() { current?.password = password }
            case .word("account"):
                _ = tokens.popFirst()
            case .word("macdef"):
                _ = tokens.popFirst()
                // The macro's body runs to the next empty line.
                while let next = tokens.popFirst(), next != .emptyLine {}
            case .word, .emptyLine:
                continue
            }
        }
        if let current { entries.append(current) }
    }

    /// The login and password for `host`: the first `machine` entry with that name (case does not matter),
    /// else the `default` entry; nil when neither gives a login. A login without a password sends an empty
    /// one (curl would prompt; wire never reads the terminal).
    func credentials(forHost host: String) -> (login: String, password: String)? {
        let name = host.lowercased()
        let entry = entries.first { $0.host == name } ?? entries.first { $0.host == nil }
        guard let entry, let login = entry.login else { return nil }
        return (login, entry.password ?? "")
    }

    /// A token of the file: a word (quoted or not), or the end of a blank line (which ends a macro).
    private enum Token: Equatable {
        case word(String)
        case emptyLine
    }

    private static func tokens(of text: String) -> [Token] {
        var tokens: [Token] = []
        var scalars = text.unicodeScalars[...]
        var newlinesInARow = 0
        while let scalar = scalars.first {
            switch scalar {
            case "\n":
                scalars.removeFirst()
                newlinesInARow += 1
                if newlinesInARow == 2 { tokens.append(.emptyLine) }
            case " ", "\t", "\r":
                scalars.removeFirst()
            case "\"":
                scalars.removeFirst()
                newlinesInARow = 0
                var word = ""
                while let next = scalars.popFirst(), next != "\"" {
                    guard next == "\\", let escaped = scalars.popFirst() else {
                        word.unicodeScalars.append(next)
                        continue
                    }
                    switch escaped {
                    case "n": word += "\n"
                    case "r": word += "\r"
                    case "t": word += "\t"
                    default: word.unicodeScalars.append(escaped)
                    }
                }
                tokens.append(.word(word))
            default:
                newlinesInARow = 0
                let word = scalars.prefix { !" \t\r\n".unicodeScalars.contains($0) }
                scalars = scalars.dropFirst(word.count)
                tokens.append(.word(String(String.UnicodeScalarView(word))))
            }
        }
        return tokens
    }
}

extension Netrc {
    /// The `.netrc` file `-n` or `--netrc-file` names, read on the disk worker; nil when neither was given,
    /// or when `-n` finds no `~/.netrc`. A named file that cannot be read is exit 26.
    static func load(for command: ParsedCommand) async throws -> Netrc? {
        let path: String
        switch command.netrc {
        case nil: return nil
        case .home:
            guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
            path = home + "/.netrc"
        case .file(let named): path = named
        }
        let bytes: [UInt8]?
        do {
            bytes = try await BlockingWorker.shared.run { try FileSystem.contents(ofPath: path, limit: 1 << 20) }
        } catch let TransportError.fileReadFailed(_, _, code) {
            throw HTTPWireError.localReadFailed(path: path, errno: code)
        }
        guard let bytes else {
            if case .file = command.netrc { throw HTTPWireError.localReadFailed(path: path, errno: ENOENT) }
            return nil
        }
        return Netrc(parsing: String(decoding: bytes, as: UTF8.self))
    }

}

/// Adds Basic credentials (RFC 7617) from a `.netrc` file to every hop that has none, looked up by the
/// hop's host: after a redirect the new host's entry applies, or none.
struct NetrcCredentials: HTTPMiddleware {
    let netrc: Netrc

    @concurrent func adapt(_ request: inout OutgoingRequest) async throws {
        guard !request.fields.contains("Authorization"),
            let credentials = netrc.credentials(forHost: request.url.host)
        else { return }
        let value = try Authorization.basic(user: credentials.login, password: credentials.password).fieldValue()
        request.fields.set(name: "Authorization", value: value)
    }
}

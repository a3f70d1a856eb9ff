// CookieOptions: wire's `-b` and `-c`, as curl spells and reads them (edge layer): which `-b` values are
// cookies and which are files, the jar they make, and writing `-c FILE` when the command ends — after a
// failure too, without changing the command's exit code. No HTTP here: the jar does the cookie rules.
//
// curl's rules, kept: `-b 'a=1; b=2'` (a value containing `=`) sends those cookies as they are, in the
// `Cookie` field of the request — to the URL's origin only (the client drops a caller's `Cookie` field when
// a redirect changes origin); `-b FILE` loads a Netscape cookie file into a jar, which then also keeps the
// cookies responses set (a missing file is fine: an empty jar); `-c FILE` turns the jar on and writes it,
// session cookies included, when the command ends. Cookies given as text are not written to `-c FILE`.

import HTTPWire

/// `-b` and `-c` for a request command.
enum CookieOptions {
    /// `-b` values that are cookies to send (they contain `=`), joined into one `Cookie` value.
    static func cookieText(for command: ParsedCommand) -> String? {
        let texts = command.cookies.filter { $0.contains("=") }
        return texts.isEmpty ? nil : texts.joined(separator: "; ")
    }

    /// The `-b` values that name cookie files.
    static func files(for command: ParsedCommand) -> [String] {
        command.cookies.filter { !$0.contains("=") }
    }

    /// The jar the command uses — nil unless `-c` or a `-b FILE` asks for one — with every `-b FILE` loaded.
    static func jar(for command: ParsedCommand) async throws -> CookieJar? {
        let files = files(for: command)
        guard command.cookieJarPath != nil || !files.isEmpty else { return nil }
        let jar = CookieJar()
        for file in files { try await jar.load(fromFile: file) }
        return jar
    }

    /// Writes `jar` to `-c FILE` when one was given. After a command that failed (`failed` is true) a write
    /// error is reported as a warning line and the command's own error stays the one that decides the exit
    /// code; after a success it is the command's error (exit 23, as curl's "could not write cookie file").
    static func save(_ jar: CookieJar?, for command: ParsedCommand, afterFailure failed: Bool) async throws {
        guard let jar, let path = command.cookieJarPath else { return }
        do {
            try await jar.save(toFile: path)
        } catch {
            guard failed else { throw error }
            guard command.showsErrors else { return }
            Terminal.writeError("wire: warning: could not write cookies to \(path): \(error)\n")
        }
    }
}

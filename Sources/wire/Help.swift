// Help: the text of `wire --help` and of each command's `--help` (edge layer).
// Option lines come from CommandOption, the same table the parser reads, so help cannot list an option
// the command refuses or miss one it accepts. This file only builds strings; main.swift prints them.

/// wire's usage texts.
enum Help {
    /// What `wire --version` prints.
    static let versionLine = "wire \(version) (HTTPWire, HTTP/1.1)"
    /// The version number alone, also sent in wire's `User-Agent`.
    static let version = "0.1.0"

    /// `wire --help` and `wire help`: every command with one line each.
    static var topLevel: String {
        let width = CommandName.allCases.map(\.rawValue.count).max() ?? 0
        var text = """
            wire: an HTTP/1.1 client built on HTTPWire

            usage: wire <command> [options] [arguments]
                   wire --version

            commands:

            """
        for command in CommandName.allCases {
            text += "  " + padded(command.rawValue, to: width) + "  " + purpose(of: command) + "\n"
        }
        text += """

            Options may come before or after the URLs; -- ends the options.
            Exit codes follow curl: 2 for a usage mistake, 6 no such host, 7 cannot connect, 22 HTTP status
            with --fail, 28 timeout, 60 certificate not trusted, 61 bad content encoding (--compressed),
            130 interrupted.
            Run 'wire <command> --help' (or 'wire help <command>') for the options of a command.

            """
        return text
    }

    /// `wire <command> --help`: usage line, what the command does, and each option it accepts.
    static func text(for command: CommandName) -> String {
        var text = "usage: " + synopsis(of: command) + "\n\n" + purpose(of: command) + ".\n"
        let options = CommandOption.allCases.filter { $0.commands.contains(command) }
        let labels = options.map { option in
            option.spellings.joined(separator: ", ") + (option.valueName.map { " " + $0 } ?? "")
        }
        // Long value placeholders (the -F syntax) would push every summary far right: they get their own line.
        let width = labels.filter { $0.count <= 28 }.map(\.count).max() ?? 0
        text += "\noptions:\n"
        for (option, label) in zip(options, labels) {
            if label.count > width {
                text += "  " + label + "\n  " + padded("", to: width) + "  " + option.summary + "\n"
            } else {
                text += "  " + padded(label, to: width) + "  " + option.summary + "\n"
            }
        }
        if options.contains(.writeOut) {
            text += "\n-w variables (curl's units: seconds with microseconds, bytes, bytes per second):\n"
            // Wrapped at 100 columns, one indented line after another.
            var line = " "
            for name in WriteOut.Variable.allCases.map({ "%{\($0.rawValue)}" }) {
                if line.count + 1 + name.count > 100 {
                    text += line + "\n"
                    line = " "
                }
                line += " " + name
            }
            text += line + "\n"
        }
        return text
    }

    /// The usage line of a command.
    static func synopsis(of command: CommandName) -> String {
        switch command {
        case .get: return "wire get URL [URL ...] [-o FILE] [--parallel N] [-G -d NAME=VALUE ...] [-I] [options]"
        case .head: return "wire head URL [options]"
        case .post: return "wire post URL (--json TEXT | --data TEXT | --data @FILE | -T FILE | -F PART...) [options]"
        case .put: return "wire put URL (--json TEXT | --data TEXT | --data @FILE | -T FILE | -F PART...) [options]"
        case .delete: return "wire delete URL [options]"
        case .upload: return "wire upload URL -F name=value -F name=@path[;type=MIME][;filename=NAME] ... [options]"
        case .download:
            return
                "wire download URL... [-o FILE | --dir DIR] [--parallel N] [--restart] [--sha256 HEX] [--retry N] [--limit-rate RATE] [options]"
        case .serve: return "wire serve [DIR] [--port N | --unix-socket PATH] [--tls] [--log]"
        case .demo: return "wire demo"
        }
    }

    /// One sentence (without the full stop) saying what a command does.
    static func purpose(of command: CommandName) -> String {
        switch command {
        case .get: return "Send GET to each URL and write the bodies to standard output, in the order given"
        case .head: return "Send HEAD and print the status line and the response fields"
        case .post: return "Send POST with a body and write the response body to standard output"
        case .put: return "Send PUT with a body and write the response body to standard output"
        case .delete: return "Send DELETE and write the response body to standard output"
        case .upload: return "Send POST with a multipart/form-data body built from -F parts"
        case .download: return "Save a URL to a file, resuming a partial file unless --restart is given"
        case .serve:
            return "Serve DIR (default: the current directory) and the test routes on 127.0.0.1 (or a socket file)"
        case .demo: return "Run a guided tour of wire against a server started on 127.0.0.1"
        }
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(width - text.count, 0))
    }
}

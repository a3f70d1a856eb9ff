// CommandLineTests: the built `wire` binary run as a user runs it — exit status, stdout and the exact
// stderr lines for --version, every help text, usage mistakes, and commands that await the client.

import TestSupport
import Testing

@testable import wire

@Suite struct CommandLineTests {
    @Test("--version prints the name and version on stdout and exits 0", .timeLimit(.scaledMinutes(1)))
    func version() async throws {
        let result = try await WireProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == Help.versionLine + "\n")
        #expect(result.standardOutput.hasPrefix("wire 0."))
        #expect(result.standardError.isEmpty)
    }

    @Test("--help, -h and help print the top-level usage listing every command", .timeLimit(.scaledMinutes(1)))
    func topLevelHelp() async throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try await WireProcess.run(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.standardError.isEmpty)
            #expect(result.standardOutput == Help.topLevel)
            for command in CommandName.allCases {
                #expect(result.standardOutput.contains("\n  \(command.rawValue) "), "\(command) missing")
            }
        }
    }

    @Test(
        "every command's help is the same from --help, -h and help, and lists exactly its options",
        .timeLimit(.scaledMinutes(1)), arguments: CommandName.allCases)
    func commandHelp(command: CommandName) async throws {
        let name = command.rawValue
        var runs: [WireResult] = []
        for arguments in [[name, "--help"], [name, "-h"], ["help", name], [name, "http://x/", "--help"]] {
            runs.append(try await WireProcess.run(arguments))
        }
        for result in runs {
            #expect(result.status == 0)
            #expect(result.standardError.isEmpty)
            #expect(result.standardOutput == runs[0].standardOutput)
        }
        let lines = runs[0].standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "usage: wire \(name)" || lines.first?.hasPrefix("usage: wire \(name) ") == true)
        for option in CommandOption.allCases {
            let label = "  " + option.spellings.joined(separator: ", ")
            let isListed = lines.contains { $0 == label || $0.hasPrefix(label + " ") }
            #expect(isListed == option.commands.contains(command), "\(option.spellings) in \(name) help")
        }
    }

    @Test(
        "usage mistakes exit 2 with one error line and a hint naming the right help",
        .timeLimit(.scaledMinutes(1)),
        arguments: [
            ([], "no command given", "wire --help"),
            (["fetch", "http://x/"], "unknown command \"fetch\"", "wire --help"),
            (["--bogus"], "unknown option --bogus", "wire --help"),
            (["-i", "get", "http://x/"], "option -i must come after a command, as in wire get -i URL", "wire --help"),
            (["help", "fetch"], "unknown command \"fetch\"", "wire --help"),
            (["--version", "get"], "--version takes no arguments", "wire --help"),
            (["get"], "wire get needs at least one URL", "wire get --help"),
            (["get", "http://x/", "--bogus"], "unknown option --bogus", "wire get --help"),
            (["get", "http://x/", "-o"], "option -o needs a value", "wire get --help"),
            (["get", "--restart", "http://x/"], "option --restart does not apply to wire get", "wire get --help"),
            (["get", "--fail=yes", "http://x/"], "option --fail takes no value", "wire get --help"),
            (
                ["get", "--timeout", "soon", "http://x/"],
                "option --timeout needs a positive number of seconds, not \"soon\"", "wire get --help"
            ),
            (
                ["get", "--parallel", "0", "http://x/"],
                "option --parallel needs a whole number, 1 or more, not \"0\"", "wire get --help"
            ),
            (["get", "-H", "NoColon", "http://x/"], "header \"NoColon\" is not \"Name: value\"", "wire get --help"),
            (["head", "http://a/", "http://b/"], "wire head takes exactly one URL, not 2", "wire head --help"),
            (
                ["post", "http://x/", "--json", "{}", "-d", "a"], "give one body: --json or --data, once",
                "wire post --help"
            ),
            (["upload", "http://x/"], "wire upload needs at least one -F part", "wire upload --help"),
            (
                ["upload", "http://x/", "-F", "novalue"], "form part \"novalue\" is not name=value or name=@file",
                "wire upload --help"
            ),
            (
                ["download", "http://x/", "--sha256", "abc"], "--sha256 needs 64 hexadecimal digits",
                "wire download --help"
            ),
            (
                ["download", "http://x/", "-o", "f", "--dir", "d"], "use either -o or --dir, not both",
                "wire download --help"
            ),
            (
                ["serve", "--port", "70000"], "option --port needs a whole number, 0...65535, not \"70000\"",
                "wire serve --help"
            ),
            (["demo", "extra"], "wire demo takes no arguments", "wire demo --help"),
        ])
    func usageMistake(arguments: [String], message: String, help: String) async throws {
        let result = try await WireProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "wire: error: \(message)\nwire: try '\(help)' for more information\n")
    }
}

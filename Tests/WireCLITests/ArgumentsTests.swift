// ArgumentsTests: the parser in-process — option order, value forms, -F and -H syntax, and that the
// option table, the parser and the help text agree for every command, and the inputs the Arguments fuzz
// target failed on (Fixtures/fuzz/Arguments/fuzz-*).

import Testing

@testable import wire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct ArgumentsTests {
    @Test("options may come before, between and after the URLs; URL order is kept")
    func optionOrder() throws {
        let before = try parsedCommand(["get", "-i", "--fail", "-H", "A: 1", "-o", "out", "http://a/", "http://b/"])
        let between = try parsedCommand(["get", "http://a/", "-i", "-H", "A: 1", "http://b/", "--fail", "-o", "out"])
        let after = try parsedCommand(["get", "http://a/", "http://b/", "-o", "out", "--fail", "-H", "A: 1", "-i"])
        #expect(before.urls == ["http://a/", "http://b/"])
        #expect(before.include && before.fail && before.output == "out")
        #expect(before.headers == [HeaderArgument(name: "A", value: "1")])
        #expect(between == before)
        #expect(after == before)
    }

    @Test("--name=value equals --name value; -- ends the options")
    func valueForms() throws {
        let joined = try parsedCommand(["get", "--timeout=2.5", "--max-redirects=0", "http://a/"])
        let separate = try parsedCommand(["get", "--timeout", "2.5", "--max-redirects", "0", "http://a/"])
        #expect(joined == separate)
        #expect(joined.timeoutSeconds == 2.5 && joined.maxRedirects == 0)
        let ended = try parsedCommand(["get", "-v", "--", "-odd-name", "--fail"])
        #expect(ended.urls == ["-odd-name", "--fail"])
        #expect(ended.verbose && !ended.fail)
        #expect(try parsedCommand(["get", "-"]).urls == ["-"])
    }

    @Test("defaults when options are absent")
    func defaults() throws {
        let parsed = try parsedCommand(["download", "http://x/f"])
        #expect(parsed.maxRedirects == 10 && parsed.parallel == 1 && parsed.retries == 0)
        #expect(parsed.progress == nil && !parsed.restart && parsed.output == nil && parsed.sha256 == nil)
    }

    @Test("--progress and --no-progress: the last one wins, neither leaves the choice to the terminal")
    func progressFlags() throws {
        #expect(try parsedCommand(["get", "u", "--progress"]).progress == true)
        #expect(try parsedCommand(["get", "u", "--no-progress"]).progress == false)
        #expect(try parsedCommand(["get", "u", "--progress", "--no-progress"]).progress == false)
    }

    @Test("-H splits at the first colon and trims the value's surrounding whitespace")
    func headers() throws {
        let parsed = try parsedCommand(["get", "u", "-H", "X-Time:  12:30 \t", "-H", "Empty:", "--header", "A:b"])
        #expect(
            parsed.headers == [
                HeaderArgument(name: "X-Time", value: "12:30"), HeaderArgument(name: "Empty", value: ""),
                HeaderArgument(name: "A", value: "b"),
            ])
        for bad in [": value", "Bad Name: x", "NoColon"] {
            #expect(throws: UsageError.self) { try Arguments.parse(["get", "u", "-H", bad]) }
        }
    }

    @Test(
        "-F parts: text values are taken whole, file parts read type= and filename=",
        arguments: [
            ("a=1", FormArgument(name: "a", value: "1")),
            ("a=", FormArgument(name: "a", value: "")),
            ("a=x;type=text/plain", FormArgument(name: "a", value: "x;type=text/plain")),
            ("note=a=b", FormArgument(name: "note", value: "a=b")),
            ("f=@photo.png", FormArgument(name: "f", path: "photo.png")),
            ("f=@p.bin;type=image/png", FormArgument(name: "f", path: "p.bin", contentType: "image/png")),
            ("f=@p;filename=a b.png", FormArgument(name: "f", path: "p", fileName: "a b.png")),
            (
                "f=@/tmp/p;filename=x.txt;type=text/plain",
                FormArgument(name: "f", path: "/tmp/p", contentType: "text/plain", fileName: "x.txt")
            ),
        ])
    func formParts(text: String, expected: FormArgument) throws {
        #expect(try parsedCommand(["upload", "u", "-F", text]).form == [expected])
    }

    @Test(
        "malformed -F parts are usage errors naming the part",
        arguments: ["novalue", "=v", "f=@", "f=@p;size=3", "f=@p;type="])
    func badFormParts(text: String) {
        #expect(throws: UsageError.self) { try Arguments.parse(["upload", "u", "-F", text]) }
    }

    /// The words of `Fixtures/fuzz/Arguments/NAME`, a command line as the fuzz target reads it (NUL-separated).
    private static func seedWords(_ name: String) throws -> [String] {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // this file, WireCLITests, Tests
        let path = parts.joined(separator: "/") + "/Fixtures/fuzz/Arguments/" + name
        let data = try #require(FileManager.default.contents(atPath: path))
        return data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `Fixtures/fuzz/Arguments/fuzz-help-after-dashdash-value` (`wire upload -c -- -h "" -c ; -.c`): the
    /// fuzz target's first crash in `make fuzz-long`. `-c` took `--` as its value, so the help check, which
    /// looks only before the first `--`, missed the `-h` after it, and the parser reached its
    /// "cannot happen" trap. The parser now answers help itself.
    @Test("--help after a -- that an option took as its value is still help, and such a -- ends nothing")
    func helpAfterDashDashValue() throws {
        let words = try Self.seedWords("fuzz-help-after-dashdash-value")
        #expect(words.prefix(4) == ["upload", "-c", "--", "-h"])
        #expect(try Arguments.parse(words) == .help(.upload))
        #expect(try Arguments.parse(["get", "-o", "--", "--help", "http://x/"]) == .help(.get))
        guard case .run(let parsed) = try Arguments.parse(["get", "-o", "--", "-i", "http://x/"]) else {
            Issue.record("not a run")
            return
        }
        #expect(parsed.output == "--" && parsed.include && parsed.urls == ["http://x/"])
    }

    /// `Fixtures/fuzz/Arguments/fuzz-unknown-command-crlf`: what the Arguments fuzz target failed on.
    @Test("a usage error stays one line: control characters in the quoted words are escaped")
    func controlCharactersAreEscaped() throws {
        let words = try Self.seedWords("fuzz-unknown-command-crlf")
        #expect(throws: UsageError(message: #"unknown command "heaCONNECT example.com:443 HTTP/1.1\r\nd""#)) {
            try Arguments.parse(words)
        }
        #expect(throws: UsageError(message: #"unknown option --x\u{1B}[2J"#)) {
            try Arguments.parse(["--x\u{1B}[2J"])
        }
    }

    @Test("--data @FILE reads a file, --data TEXT and --json are sent as given")
    func bodies() throws {
        #expect(try parsedCommand(["post", "u", "--data", "@body.bin"]).body == .file("body.bin"))
        #expect(try parsedCommand(["post", "u", "-d", "a=1&b=2"]).body == .text("a=1&b=2"))
        #expect(try parsedCommand(["put", "u", "--json", "{}"]).body == .json("{}"))
    }

    @Test("--sha256 accepts 64 hex digits in either case and keeps them lowercase")
    func sha256() throws {
        let upper = String(repeating: "AB12", count: 16)
        #expect(try parsedCommand(["download", "u", "--sha256", upper]).sha256 == upper.lowercased())
        for bad in [
            String(repeating: "g", count: 64), String(repeating: "a", count: 63),
            "０" + String(repeating: "a", count: 63),
        ] {
            #expect(throws: UsageError.self) { try Arguments.parse(["download", "u", "--sha256", bad]) }
        }
    }

    @Test("--help anywhere after a command wins over other mistakes on the line")
    func helpWins() throws {
        #expect(try Arguments.parse(["get", "--bogus", "--help"]) == .help(.get))
        #expect(try Arguments.parse(["upload", "-h"]) == .help(.upload))
        #expect(try Arguments.parse(["help"]) == .help(nil))
        #expect(try Arguments.parse(["get", "--", "--help"]) != .help(.get))
    }

    @Test("every option is accepted by exactly the commands whose help lists it", arguments: CommandName.allCases)
    func tableMatchesParser(command: CommandName) throws {
        let operands: [String] =
            switch command {
            case .serve: ["dir"]
            case .demo: []
            case .get, .head, .post, .put, .delete, .upload, .download: ["http://x/"]
            }
        let form = command == .upload ? ["-F", "a=1"] : []
        for option in CommandOption.allCases where option != .help {
            // A spelling two options share (`-i`: --include, and --input-file for download) means the one
            // that applies to the command; the other is not what the command reads.
            for spelling in option.spellings where CommandOption.named(spelling, for: command) == option {
                let value: String =
                    switch option {
                    case .form: "b=2"
                    case .header: "A: b"
                    case .sha256: String(repeating: "a", count: 64)
                    case .pinnedPublicKey: "sha256//" + String(repeating: "A", count: 43) + "="  // 32 zero bytes
                    case .user: "a:b"
                    case .resolve: "h:80:127.0.0.1"
                    case .continueAt: "-"
                    case .range: "0-1"
                    case .connectTo: "h:80:127.0.0.1:81"
                    default: "1"
                    }
                // `wire get` sends -d data only in the query, with -G.
                let query =
                    command == .get && (option == .data || option == .dataURLEncode || option == .dataRaw) ? ["-G"] : []
                // Options that only mean something with another: --digest answers with -u's credentials,
                // --key is --cert's key.
                let companion: [String] =
                    switch option {
                    case .digest: ["-u", "a:b"]
                    case .key: ["--cert", "c.pem"]
                    default: []
                    }
                let words =
                    [command.rawValue, spelling] + (option.valueName == nil ? [] : [value]) + query + companion + form
                    + operands
                if option.commands.contains(command) {
                    #expect(throws: Never.self, "\(words)") { try Arguments.parse(words) }
                } else {
                    #expect(
                        throws: UsageError(
                            message: "option \(spelling) does not apply to wire \(command.rawValue)", command: command)
                    ) {
                        try Arguments.parse(words)
                    }
                }
            }
        }
    }

    @Test("--limit-rate reads curl's units: bytes, K, M and G as 1024 multiples")
    func limitRate() throws {
        for (text, expected) in [("1000", Int64(1000)), ("500K", 512_000), ("2m", 2 << 20), ("1G", 1 << 30)] {
            guard case .run(let parsed) = try Arguments.parse(["download", "u", "-o", "f", "--limit-rate", text]) else {
                Issue.record("no command for \(text)")
                continue
            }
            #expect(parsed.limitRate == expected)
        }
        for bad in ["", "0", "fast", "10X", "-5K", "K"] {
            #expect(throws: UsageError.self) { try Arguments.parse(["download", "u", "--limit-rate", bad]) }
        }
        #expect(throws: UsageError.self) { try Arguments.parse(["get", "u", "--limit-rate", "1K"]) }
    }

    @Test("--segment-probe takes seconds from 0 (every connection at once) to 3600, for download only")
    func segmentProbe() throws {
        for (text, expected) in [("0", 0.0), ("0.25", 0.25), ("2", 2.0)] {
            guard case .run(let parsed) = try Arguments.parse(["download", "u", "-o", "f", "--segment-probe", text])
            else {
                Issue.record("no command for \(text)")
                continue
            }
            #expect(parsed.segmentProbeSeconds == expected)
        }
        for bad in ["", "-1", "soon", "3601", "nan"] {
            #expect(throws: UsageError.self) { try Arguments.parse(["download", "u", "--segment-probe", bad]) }
        }
        #expect(throws: UsageError.self) { try Arguments.parse(["get", "u", "--segment-probe", "1"]) }
    }
}

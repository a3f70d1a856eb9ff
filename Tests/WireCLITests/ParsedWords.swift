// ParsedWords: the two questions the parser tests ask of a command line — what command do these words
// parse to, and what usage error do they give — shared by the suites that test wire's options.

import Testing

@testable import wire

/// The command `words` parse to. Words that ask for help or the version are recorded as an issue (the
/// caller expected a command) and give a placeholder.
func parsedCommand(_ words: [String]) throws -> ParsedCommand {
    guard case .run(let parsed) = try Arguments.parse(words) else {
        Issue.record("\(words) did not parse to a command")
        return ParsedCommand(command: .demo)
    }
    return parsed
}

/// The message of the usage error `words` give, or nil when they parse.
func usageMessage(_ words: [String]) -> String? {
    do {
        _ = try Arguments.parse(words)
        return nil
    } catch {
        return error.message
    }
}

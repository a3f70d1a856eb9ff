// Commands: runs a ParsedCommand (edge layer). This is where the CLI meets HTTPClient and FixtureServer:
// it builds requests from the parsed options, streams bodies to stdout or files, and draws the progress
// bar. Neither the client nor the fixture server exists yet, so every command reports that it is not
// implemented (exit 2) instead of pretending to work.

/// Runs wire's commands. Failures are thrown; main.swift turns them into a stderr line and an exit code.
enum Commands {
    /// Runs `command` to completion. Cancelling the task (Ctrl-C) ends it with `CancellationError`.
    static func run(_ command: ParsedCommand) async throws {
        switch command.command {
        // TODO(cli issue): wire these to HTTPClient when the client lands; serve and demo to FixtureServer.
        case .get, .head, .post, .put, .delete, .upload, .download, .serve, .demo:
            throw UsageError(message: "\(command.command.rawValue) is not implemented yet", suggestsHelp: false)
        }
    }
}

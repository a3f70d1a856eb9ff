// Commands: runs a ParsedCommand by handing it to the file of its command (edge layer). Each command
// file — GetCommand, HeadCommand, SendCommand, UploadCommand, DownloadCommand, ServeCommand, DemoCommand —
// is a thin layer over one library call, so its source doubles as example code.

/// Runs wire's commands. Failures are thrown; main.swift turns them into a stderr line and an exit code.
enum Commands {
    /// Runs `command` to completion. Cancelling the task (Ctrl-C) ends it with `CancellationError`.
    static func run(_ command: ParsedCommand) async throws {
        switch command.command {
        case .get: try await GetCommand.run(command)
        case .head: try await HeadCommand.run(command)
        case .post: try await SendCommand.run(command, method: .post)
        case .put: try await SendCommand.run(command, method: .put)
        case .delete: try await SendCommand.run(command, method: .delete)
        case .serve: try await ServeCommand.run(command)
        case .upload: try await UploadCommand.run(command)
        case .download: try await DownloadCommand.run(command)
        case .demo: try await DemoCommand.run(command)
        }
    }
}

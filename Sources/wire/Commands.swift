// Commands: runs a ParsedCommand by handing it to the file of its command (edge layer). Each command
// file — GetCommand, HeadCommand, SendCommand, UploadCommand, DownloadCommand, ServeCommand, DemoCommand —
// is a thin layer over one library call, so its source doubles as example code.

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

/// Runs wire's commands. Failures are thrown; main.swift turns them into a stderr line and an exit code.
enum Commands {
    /// Runs `command` to completion. Cancelling the task (Ctrl-C) ends it with `CancellationError`.
    static func run(_ parsed: ParsedCommand) async throws {
        var command = parsed
        if command.remoteName { command.output = try remoteFileName(command.urls[0]) }
        if command.createDirs { try await createDirectories(for: command) }
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

    /// `--create-dirs`: the directory `-o FILE` (or `-O`'s name) goes into, or `--dir DIR`, with every missing
    /// one above it, made on the disk worker (mkdir may block on the disk). A failure is exit 23, as
    /// curl's "could not create directory".
    static func createDirectories(for command: ParsedCommand) async throws {
        let directory = command.directory ?? command.output.map(FileSystem.directoryName(of:))
        guard let directory, directory != "." else { return }
        do {
            try await BlockingWorker.shared.run { try FileSystem.createDirectories(directory) }
        } catch let TransportError.fileWriteFailed(_, path, code) {
            throw HTTPWireError.localWriteFailed(path: path, errno: code)
        }
    }

    /// `-O`: the URL's last path segment, percent-decoded and made safe as a file name (no `/`, no `..`, no
    /// control characters: the rule downloads use for a name a server suggests), in the current directory.
    /// A URL whose path ends in `/` names no file: curl refuses it too.
    static func remoteFileName(_ url: String) throws -> String {
        let target: TargetURL
        do {
            target = try TargetURL(url)
        } catch {
            throw HTTPWireError.invalidURL("\(error)")
        }
        guard let segment = target.lastPathSegment, let name = ContentDisposition.sanitizedFileName(segment) else {
            throw UsageError(
                message: "-O needs a URL whose path ends in a file name, not \"\(url)\"; use -o FILE",
                command: nil, suggestsHelp: false)
        }
        return name
    }
}

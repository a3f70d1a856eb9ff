// HeadCommand: `wire head URL` (edge layer). One library call, `client.head(url, fields:)`, then the
// status line and the fields on standard output. A HEAD response never has a body (RFC 9110 §9.3.2), so
// nothing else is printed. Example code for the collected-response shortcut.

import HTTPWire

/// Runs `wire head`.
enum HeadCommand {
    static func run(_ command: ParsedCommand) async throws {
        let output = BodyOutput(path: nil)
        try await ClientSettings.withClient(for: command) { client in
            let response = try await client.head(command.urls[0], fields: ClientSettings.fields(for: command))
            try ClientSettings.check(response.status, for: command)
            try output.write(
                text: HeadText.lines(
                    version: response.version, status: response.status, reason: response.reason,
                    fields: response.fields))
        }
        try output.close()
    }
}

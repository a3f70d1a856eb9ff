// HeadCommand: `wire head URL` and `wire get -I URL...` (edge layer). One library call per URL,
// `client.head(url, fields:)`, then the status line and the fields on standard output. A HEAD response never
// has a body (RFC 9110 §9.3.2), so nothing else is printed. Example code for the collected-response shortcut.

import HTTPWire

/// Runs `wire head`.
enum HeadCommand {
    static func run(_ command: ParsedCommand) async throws {
        let output = BodyOutput(path: nil)
        try await ClientSettings.withClient(for: command) { client in
            for url in command.urls {
                let response = try await client.head(url, fields: ClientSettings.fields(for: command))
                try ClientSettings.check(response.status, for: command)
                try output.write(
                    text: HeadText.lines(
                        version: response.version, status: response.status, reason: response.reason,
                        fields: response.fields))
                try ClientSettings.writeOut(
                    status: response.status, url: response.url, fields: response.fields, metrics: response.metrics,
                    for: command, into: output)
            }
        }
        try output.close()
    }
}

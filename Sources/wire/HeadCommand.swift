// HeadCommand: `wire head URL` and `wire get -I URL...` (edge layer). One library call per URL,
// `client.head(url, fields:)`, then the status line and the fields on standard output. A HEAD response never
// has a body (RFC 9110 §9.3.2), so nothing else is printed. Example code for the collected-response shortcut.

import HTTPWire

/// Runs `wire head`.
enum HeadCommand {
    static func run(_ command: ParsedCommand) async throws {
        // The heads go to standard output; -o does not apply to head, so the command's output is that.
        let output = BodyOutput(for: command)
        do {
            try await ClientSettings.withClient(for: command, recordingHeadsFor: output) { client in
                for url in command.urls {
                    let response: HTTPResponse
                    do {
                        response = try await client.head(url, fields: ClientSettings.fields(for: command))
                    } catch {
                        throw ClientSettings.noAnswer(error, url: url, for: command, into: output)
                    }
                    // --fail: no head printed, but the -w report still comes, as curl's does.
                    try await ClientSettings.reporting(response, for: command, into: output) {
                        try output.writeEarlierHeads(for: command)
                        try output.dumpHead(
                            version: response.version, status: response.status, reason: response.reason,
                            fields: response.fields)
                        try ClientSettings.check(response.status, for: command)
                        try output.write(
                            text: HeadText.lines(
                                version: response.version, status: response.status, reason: response.reason,
                                fields: response.fields))
                        try ClientSettings.checkAfterBody(response.status, for: command)
                    }
                }
            }
        } catch {
            // A head or -w report printed before the failure still goes out.
            try? output.close()
            throw error
        }
        try output.close()
    }
}

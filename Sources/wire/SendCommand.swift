// SendCommand: `wire post`, `wire put` and `wire delete` (edge layer). One library call each —
// `client.stream(HTTPRequest(method:url:fields:body:))` — and the response body on standard output (or
// `-o`). The body options map onto RequestBody as curl's do: `--json TEXT` is sent as is with
// `Content-Type: application/json` and `Accept: application/json`; `--data TEXT` with
// `application/x-www-form-urlencoded`; `--data @FILE` streams the file from disk (sendfile(2) on plain
// HTTP) with its size as Content-Length; `-T FILE` (curl's upload) streams it the same way with no
// Content-Type at all. A `-H` of the same name wins over these defaults.

import HTTPWire
import HTTPWireCodec

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `wire post`, `wire put` and `wire delete`.
enum SendCommand {
    static func run(_ command: ParsedCommand, method: Method) async throws {
        var fields = ClientSettings.fields(for: command)
        let body: RequestBody
        switch command.body {
        case .json(let text):
            body = .bytes(Array(text.utf8))
            setDefault(&fields, "Content-Type", "application/json")
            setDefault(&fields, "Accept", "application/json")
        case .text(let text):
            body = .bytes(Array(text.utf8))
            setDefault(&fields, "Content-Type", "application/x-www-form-urlencoded")
        case .file(let path):
            body = .file(path: path)
            setDefault(&fields, "Content-Type", "application/x-www-form-urlencoded")
        case .upload(let path):
            body = .file(path: path)
        case nil:
            body = .empty
        }
        let output = BodyOutput(for: command)
        do {
            try await ClientSettings.withClient(for: command, recordingHeadsFor: output) { client in
                let request = HTTPRequest(
                    method: ClientSettings.method(for: command, default: method),
                    url: ClientSettings.url(command.urls[0], for: command), fields: fields, body: body)
                let response: HTTPStreamingResponse
                do {
                    response = try await client.stream(request)
                } catch {
                    throw ClientSettings.noAnswer(error, url: request.url, for: command, into: output)
                }
                try await ClientSettings.reporting(response, for: command, into: output) {
                    try output.begin(
                        version: response.version, status: response.status, reason: response.reason,
                        fields: response.fields, for: command)
                    for try await piece in response.body { try output.writeBody(piece) }
                    try ClientSettings.checkAfterBody(response.status, for: command)
                }
            }
        } catch {
            // What arrived before the failure is written out, as curl does (a truncated body shows as far
            // as it came); the error still decides the exit code.
            try? output.close()
            throw error
        }
        try output.close()
    }

    private static func setDefault(_ fields: inout HTTPFields, _ name: String, _ value: String) {
        if !fields.contains(name) { fields.append(name: name, value: value) }
    }
}

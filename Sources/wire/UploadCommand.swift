// UploadCommand: `wire upload URL -F name=value -F name=@path[;type=MIME][;filename=NAME] ...` (edge
// layer). One library call, `client.upload(form, to:)`: a multipart/form-data POST (RFC 7578) whose file
// parts are streamed from disk with an exact Content-Length, while its progress stream drives the bar.
// The response body goes to standard output (or -o), as for `wire post`. `wire post -F` and `wire put -F`
// (curl's spelling) run here too, with their method.

import HTTPWire

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `wire upload`.
enum UploadCommand {
    static func run(_ command: ParsedCommand) async throws {
        var form = MultipartForm()
        for part in command.form {
            if let path = part.path {
                var contentType: MediaType?
                if let type = part.contentType {
                    guard let parsed = MediaType(type) else {
                        throw UsageError(message: "\"\(type)\" is not a media type (type/subtype)", command: .upload)
                    }
                    contentType = parsed
                }
                form.addFile(name: part.name, path: path, fileName: part.fileName, contentType: contentType)
            } else {
                form.addField(name: part.name, value: part.value ?? "")
            }
        }
        let showsProgress = ProgressBar.isShown(
            requested: command.progress, stderrIsTerminal: Terminal.isTerminal(STDERR_FILENO))
        let output = BodyOutput(for: command)
        do {
            try await ClientSettings.withClient(for: command, recordingHeadsFor: output) { client in
                let upload = client.upload(
                    form, to: command.urls[0], method: ClientSettings.method(for: command, default: .post),
                    fields: ClientSettings.fields(for: command))
                let observer = Task {
                    var bar: LiveProgressBar?
                    for await progress in upload.progress where showsProgress {
                        if bar == nil { bar = LiveProgressBar(ProgressBar(total: progress.expectedBytes)) }
                        bar?.update(transferred: progress.receivedBytes)
                    }
                    bar?.finish()
                }
                let response: HTTPResponse
                do {
                    response = try await upload.response
                    await observer.value
                } catch {
                    await observer.value
                    throw ClientSettings.noAnswer(error, url: command.urls[0], for: command, into: output)
                }
                try await ClientSettings.reporting(response, for: command, into: output) {
                    try output.begin(
                        version: response.version, status: response.status, reason: response.reason,
                        fields: response.fields, for: command)
                    try output.writeBody(response.body)
                    try ClientSettings.checkAfterBody(response.status, for: command)
                }
            }
        } catch {
            // A -w report written before the failure still goes out.
            try? output.close()
            throw error
        }
        try output.close()
    }
}

// RunExample: runs one example of Sources/Examples by name (edge layer). Each example is a function on
// HTTPWire's public API; this file only reads the arguments, makes the client and dispatches, so an example
// is written once — here it runs against any server, and `wire demo` runs the same function against its
// embedded server and checks what it returns:
//
//     wire serve --port 8080 &
//     swift run RunExample get-json http://127.0.0.1:8080/json

import Examples
import HTTPWire

#if canImport(Glibc)
    import Glibc
#endif

/// Every example: its name on the command line, its arguments, and how to run it with them.
let examples: [(name: String, usage: String, run: (HTTPClient, [String]) async throws -> Void)] = [
    ("get-json", "URL", { client, arguments in _ = try await GetJSON.run(client: client, url: arguments[0]) }),
    ("post-json", "URL", { client, arguments in _ = try await PostJSON.run(client: client, url: arguments[0]) }),
    (
        "non-ascii-url", "BASE_URL",
        { client, arguments in _ = try await NonASCIIURL.run(client: client, baseURL: arguments[0]) }
    ),
    (
        "fields-and-base-url", "BASE_URL",
        { _, arguments in _ = try await FieldsAndBaseURL.run(baseURL: arguments[0]) }
    ),
    ("timeouts", "URL", { _, arguments in _ = try await PhaseTimeouts.run(url: arguments[0]) }),
    ("timeouts-per-request", "URL", { _, arguments in _ = try await PhaseTimeouts.perRequest(url: arguments[0]) }),
    (
        "upload-images", "URL FILE...",
        { client, arguments in
            _ = try await UploadImages.run(client: client, url: arguments[0], files: Array(arguments.dropFirst()))
        }
    ),
    (
        "download", "URL FILE",
        { client, arguments in
            _ = try await DownloadWithProgress.run(client: client, url: arguments[0], destination: arguments[1])
        }
    ),
    (
        "suggested-name", "URL DIRECTORY",
        { client, arguments in
            _ = try await SuggestedFileName.run(client: client, url: arguments[0], directory: arguments[1])
        }
    ),
    (
        "pause-resume", "URL FILE",
        { client, arguments in
            _ = try await PauseAndResume.run(client: client, url: arguments[0], destination: arguments[1])
        }
    ),
    (
        "resume-after-crash", "URL FILE",
        { client, arguments in
            _ = try await ResumeAfterCrash.run(client: client, url: arguments[0], destination: arguments[1])
        }
    ),
    (
        "changed-file", "URL FILE",
        { client, arguments in
            _ = try await ChangedFile.run(
                client: client, url: arguments[0], destination: arguments[1],
                whilePaused: { @Sendable in
                    print("paused: change the file on the server, then press Enter")
                    _ = readLine()
                })
        }
    ),
    (
        "segmented-download", "URL FILE N",
        { client, arguments in
            _ = try await SegmentedDownload.run(
                client: client, url: arguments[0], destination: arguments[1], segments: Int(arguments[2]) ?? 4)
        }
    ),
    ("cached-responses", "URL", { _, arguments in _ = try await CachedResponses.run(url: arguments[0]) }),
    ("live-events", "URL", { client, arguments in _ = try await LiveEvents.run(client: client, url: arguments[0]) }),
    ("delete-download", "FILE...", { _, arguments in try await DeleteDownload.run(destinations: arguments) }),
    (
        "manage-downloads", "CATALOGUE_DIR OUT_DIR URL...",
        { client, arguments in
            _ = try await ManageDownloads.run(
                client: client, catalogueDirectory: arguments[0], outputDirectory: arguments[1],
                urls: Array(arguments.dropFirst(2)))
        }
    ),
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let example = examples.first(where: { $0.name == name }),
    arguments.count - 1 >= example.usage.split(separator: " ").count  // "FILE..." asks for at least one
else {
    print("usage: RunExample <example> <arguments>\n")
    for example in examples { print("  \(example.name) \(example.usage)") }
    exit(2)
}
let client = HTTPClient()
do {
    try await example.run(client, Array(arguments.dropFirst()))
    await client.shutdown()
} catch let error as HTTPWireError {
    print("error: \(error)")
    exit(error.exitCode)
} catch {
    print("error: \(error)")
    exit(1)
}

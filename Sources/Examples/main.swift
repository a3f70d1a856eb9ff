// Examples: small complete programs, one per file, each using only HTTPWire's public API. Run one with
// `swift run Examples <name> <arguments>`, against `wire serve` (or any server):
//
//     wire serve --port 8080 &
//     swift run Examples get-json http://127.0.0.1:8080/json
//
// This file only dispatches by name; each example's file holds everything it does.

import HTTPWire

#if canImport(Glibc)
    import Glibc
#endif

/// Every example: its name on the command line, its arguments, and its entry point.
let examples: [(name: String, usage: String, run: ([String]) async throws -> Void)] = [
    ("get-json", "URL", GetJSON.run),
    ("post-json", "URL", PostJSON.run),
    ("non-ascii-url", "BASE_URL", NonASCIIURL.run),
    ("upload-images", "URL FILE...", UploadImages.run),
    ("download", "URL FILE", DownloadWithProgress.run),
    ("pause-resume", "URL FILE", PauseAndResume.run),
    ("resume-after-crash", "URL FILE", ResumeAfterCrash.run),
    ("changed-file", "URL FILE", ChangedFile.run),
    ("delete-download", "FILE", DeleteDownload.run),
    ("manage-downloads", "CATALOGUE_DIR OUT_DIR URL...", ManageDownloads.run),
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let example = examples.first(where: { $0.name == name }) else {
    print("usage: Examples <example> [arguments]\n")
    for example in examples { print("  \(example.name) \(example.usage)") }
    exit(2)
}
do {
    try await example.run(Array(arguments.dropFirst()))
} catch let error as HTTPWireError {
    print("error: \(error)")
    exit(error.exitCode)
} catch {
    print("error: \(error)")
    exit(1)
}

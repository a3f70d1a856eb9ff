// SuggestedFileName: a download into a directory, saved under the name the server suggests in
// Content-Disposition (RFC 6266 §4.3), made safe first: only the last path component is kept, so
// `../../.bashrc` cannot leave the directory (example: the public API only).

import HTTPWire

/// Example: a download named by the server.
package enum SuggestedFileName {
    /// `RunExample suggested-name URL DIRECTORY`. Returns the path the file was saved at.
    package static func run(
        client: HTTPClient, url: String, directory: String, log: (String) -> Void = { print($0) }
    ) async throws -> String {
        let download = client.download(from: url, toDirectory: directory)
        let result = try await download.result()
        // Content-Disposition's filename* (RFC 8187), else filename, else the URL's last segment, else "download".
        log("saved as \(result.location) (\(result.bytes) bytes)")
        return result.location
    }
}

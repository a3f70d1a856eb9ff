// UploadImages: several files plus text fields as one multipart/form-data POST (RFC 7578), the files
// streamed from disk, with the upload's progress reported as it goes (example: the public API only).

import HTTPWire

/// Example: a multipart upload of several images with progress.
package enum UploadImages {
    /// `RunExample upload-images http://127.0.0.1:8080/upload a.png b.png`. Returns the server's answer and
    /// the byte count the last progress value reported.
    package static func run(
        client: HTTPClient, url: String, files: [String], log: (String) -> Void = { print($0) }
    ) async throws -> (response: HTTPResponse, reportedBytes: Int64) {
        var form = MultipartForm()
        form.addField(name: "album", value: "Holiday")
        form.addFiles(name: "photos[]", paths: files)  // Content-Type from each extension: image/png
        let upload = client.upload(form, to: url)
        var reported: Int64 = 0
        var nextQuarter = 1
        for await progress in upload.progress {
            reported = progress.receivedBytes
            // A line per quarter of the body; a progress bar would redraw on every value.
            while let fraction = progress.fraction, nextQuarter <= 4, fraction >= Double(nextQuarter) / 4 {
                log("sent \(progress.receivedBytes) of \(progress.expectedBytes ?? 0) bytes (\(nextQuarter * 25) %)")
                nextQuarter += 1
            }
        }
        let response = try await upload.response
        log("\(response.status.rawValue): \(response.text)")
        return (response, reported)
    }
}

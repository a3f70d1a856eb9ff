// UploadImages: several files plus text fields as one multipart/form-data POST, files streamed from disk,
// with the upload's progress printed as it goes.

import HTTPWire

enum UploadImages {
    /// `Examples upload-images http://127.0.0.1:8080/upload a.png b.png`
    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 2 else { return print("usage: upload-images URL FILE...") }
        var form = MultipartForm()
        form.addField(name: "album", value: "Holiday")
        form.addFiles(name: "photos[]", paths: Array(arguments.dropFirst()))
        let client = HTTPClient()
        let upload = client.upload(form, to: arguments[0])
        for await progress in upload.progress {
            let percent = Int((progress.fraction ?? 0) * 100)
            print("sent \(progress.receivedBytes) of \(progress.expectedBytes ?? 0) bytes (\(percent) %)")
        }
        let response = try await upload.response
        print("\(response.status.rawValue): \(response.text)")
        await client.shutdown()
    }
}

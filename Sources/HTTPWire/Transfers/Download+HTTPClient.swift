// Download+HTTPClient: the two ways to start a download from a client — to a given file, or into a
// directory under the name the server suggests.
// Features layer: entry points only; the work is in Download and its attempts. Nothing here blocks.

extension HTTPClient {
    /// Downloads `url` to the file `destination`, resuming the bytes already in `destination.part` when the
    /// server can prove the file is unchanged (`If-Range`). Returns at once; the download runs in the
    /// background until it finishes, fails or is cancelled.
    ///
    /// ```swift
    /// let download = client.download(from: "https://example.test/big.iso", to: "/tmp/big.iso")
    /// for await event in download.events { ... }          // progress, pauses, retries
    /// let result = try await download.result()            // throws httpStatus(404), localWriteFailed, ...
    /// ```
    ///
    /// A non-2xx answer is never written anywhere: it fails with ``HTTPWireError/httpStatus(_:)``. The bytes
    /// go to `destination.part` (with the resume record `destination.part.resume`), and only a complete
    /// (and, if asked, verified) file is renamed onto `destination`.
    public func download(
        from url: String, to destination: String, options: DownloadOptions = DownloadOptions()
    ) -> Download {
        startDownload(request: HTTPRequest(url: url), destination: destination, directory: nil, options: options)
    }

    /// Downloads `url` into `directory`, naming the file after the response's `Content-Disposition`
    /// (`filename*` first, then `filename`), else the URL's last path segment, else `download` — always
    /// sanitised by `ContentDisposition.downloadFileName(fieldValue:urlLastPathSegment:)`, so a hostile
    /// name such as `../../.bashrc` stays inside `directory` (as `bashrc`). ``Download/destination`` tells
    /// the chosen path once the first response arrives.
    public func download(
        from url: String, toDirectory directory: String, options: DownloadOptions = DownloadOptions()
    ) -> Download {
        startDownload(request: HTTPRequest(url: url), destination: nil, directory: directory, options: options)
    }

    /// Downloads the response to `request` — any method, fields and body — to the file `destination`.
    /// For a GET without a body this is ``download(from:to:options:)-(String,_,_)``. Any other request is never resumed:
    /// `Range` is defined for GET only (RFC 9110 §14.2: a server ignores it for other methods), and a POST
    /// may not even produce the same representation twice. So every attempt — a retry, a resume after
    /// `pause()`, a run after a crash — discards the partial data and sends the request again from byte
    /// zero, reporting ``DownloadEvent/restarted(_:)`` with
    /// ``ResumeRestartCause/FreshReason/methodNotResumable`` when data existed. The retry policy sees the
    /// request's method, so a POST is only retried when the policy allows it for that method. A
    /// ``RequestBody/stream(_:)`` body can be sent once only: such a download fails rather than restart.
    ///
    /// ```swift
    /// var request = HTTPRequest(method: .post, url: "https://example.test/export")
    /// request.fields["Content-Type"] = "application/json"
    /// request.body = .bytes(Array(#"{"format":"csv"}"#.utf8))
    /// let result = try await client.download(request, to: "/tmp/export.csv").result()
    /// print(result.status, result.head.fields["Content-Type"] ?? "")
    /// ```
    public func download(
        _ request: HTTPRequest, to destination: String, options: DownloadOptions = DownloadOptions()
    ) -> Download {
        startDownload(request: request, destination: destination, directory: nil, options: options)
    }

    /// Downloads the response to `request` into `directory`, named like
    /// ``download(from:toDirectory:options:)`` names it; restarts like ``download(_:to:options:)`` unless
    /// the request is a GET without a body.
    public func download(
        _ request: HTTPRequest, toDirectory directory: String, options: DownloadOptions = DownloadOptions()
    ) -> Download {
        startDownload(request: request, destination: nil, directory: directory, options: options)
    }

    /// Makes the ``Download`` every overload above describes and starts it: the one place a download begins.
    private func startDownload(
        request: HTTPRequest, destination: String?, directory: String?, options: DownloadOptions
    ) -> Download {
        let download = Download(
            client: self, request: request, destination: destination, directory: directory, options: options)
        download.start()
        return download
    }
}

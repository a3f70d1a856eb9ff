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
        let download = Download(client: self, url: url, destination: destination, directory: nil, options: options)
        download.start()
        return download
    }

    /// Downloads `url` into `directory`, naming the file after the response's `Content-Disposition`
    /// (`filename*` first, then `filename`), else the URL's last path segment, else `download` — always
    /// sanitised by `ContentDisposition.downloadFileName(fieldValue:urlLastPathSegment:)`, so a hostile
    /// name such as `../../.bashrc` stays inside `directory` (as `bashrc`). ``Download/destination`` tells
    /// the chosen path once the first response arrives.
    public func download(
        from url: String, toDirectory directory: String, options: DownloadOptions = DownloadOptions()
    ) -> Download {
        let download = Download(client: self, url: url, destination: nil, directory: directory, options: options)
        download.start()
        return download
    }
}

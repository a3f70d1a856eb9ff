// Upload: a request body on its way to a server, watched as it goes — the handle `HTTPClient.upload`
// returns, with the progress as an AsyncStream and the response when it comes.
// Features layer: it builds an HTTPRequest and runs `HTTPClient.send` in a task; the bytes are produced
// and written by the client (RequestBodyWriter), never here. It holds no file contents and no sockets.
//
// What "upload several photos with a caption and show a progress bar" needs is two things at once: the
// response at the end and a stream of progress values during the upload. A callback on the request can do
// it (``HTTPRequest/uploadProgress``), but then the caller juggles a closure, a task and thread-safety. A
// handle gives both as plain `await`s:
//
//     let upload = client.upload(MultipartForm(fields: ["caption": "Dunes"], files: ["photos[]": a, "photos[]": b]),
//                                to: "https://photos.example.test/albums/7")
//     for await progress in upload.progress { bar.show(progress) }   // ends when the upload is over
//     let response = try await upload.response
//
// The progress stream keeps only the newest value when the consumer is slower than the upload, so a slow
// display never slows the upload or piles up memory, and the last value (the total) is never dropped.

import HTTPWireCodec
import HTTPWireTransport

/// An upload in progress: its progress as an asynchronous sequence and its response.
///
/// Start one with ``HTTPClient/upload(_:to:method:fields:expectContinue:options:)`` (a multipart form),
/// ``HTTPClient/upload(file:to:method:fields:expectContinue:options:)`` (a file as the whole body) or
/// ``HTTPClient/upload(_:)`` (any request). The upload starts at once and runs to its end even if nobody
/// reads ``progress``; ``cancel()`` stops it, and so does cancelling a task awaiting ``response``.
///
/// Progress values (``TransferProgress``): `receivedBytes` is the number of body bytes *sent* so far,
/// `expectedBytes` the body's Content-Length (nil for a stream sent chunked), plus the smoothed speed and
/// time left once measured. They never go backwards — a body sent again for a 307/308 redirect or a retry
/// shows as a pause — arrive at least every 256 KiB or about every 50 ms while bytes flow, and a body sent
/// completely ends with `receivedBytes == expectedBytes`. While the body stalls (a server that stops
/// reading), a report still comes once a second with the same count and a falling speed. A server that
/// refuses the body early (a 413, or a final answer to `Expect: 100-continue`) ends the stream short of the
/// total.
public final class Upload: Sendable {
    /// Progress reports, newest kept when the consumer lags; the sequence ends when the response head has
    /// arrived and its body has been read, or the upload failed.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<HTTPResponse, any Error>

    /// Starts sending `request` with `client`.
    init(client: HTTPClient, request: HTTPRequest) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        var request = request
        let callerCallback = request.uploadProgress
        request.uploadProgress = { progress in
            callerCallback?(progress)
            continuation.yield(progress)
        }
        self.progress = stream
        // On the reactor when the caller runs there (HTTPClient.reactorExecutor), as its own requests do.
        self.task = Task(executorPreference: Reactor.currentTaskPreference) {
            defer { continuation.finish() }
            return try await client.send(request)
        }
    }

    /// The response, its body collected in memory as ``HTTPClient/send(_:)`` does. Throws what the upload
    /// failed with (``HTTPWireError/localFileChanged(path:expectedSize:actualSize:)`` for a file that
    /// changed size while it was sent, for instance). Cancelling the awaiting task cancels the upload.
    public var response: HTTPResponse {
        get async throws {
            let task = self.task
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// Stops the upload: the connection is closed and ``response`` throws `CancellationError`.
    public func cancel() {
        task.cancel()
    }
}

extension HTTPClient {
    /// Uploads a multipart/form-data form (RFC 7578), streaming files from disk with an exact Content-Length.
    ///
    /// ```swift
    /// let form = MultipartForm(fields: ["album": "Holiday"], files: ["photos[]": "/tmp/a.jpg", "photos[]": "/tmp/b.jpg"])
    /// let upload = client.upload(form, to: "https://example.test/photos")
    /// for await progress in upload.progress { print("\(Int((progress.fraction ?? 0) * 100)) %") }
    /// let response = try await upload.response
    /// ```
    ///
    /// - Parameters:
    ///   - form: the fields and files; files are read from disk while they are sent.
    ///   - url: where to send it, absolute or relative to the client's base URL.
    ///   - method: `POST` by default, as HTML forms send it.
    ///   - fields: request fields; `Content-Type` with the boundary is added unless given.
    ///   - expectContinue: send `Expect: 100-continue` and wait briefly for the server's go-ahead, so a server
    ///     that refuses the upload (401, 413) does so before the body is sent (RFC 9110 §10.1.1).
    ///   - options: this upload's timeouts, retries, validation, credentials (a longer total timeout than
    ///     the client's, say); unset ones are the client's.
    public func upload(
        _ form: MultipartForm, to url: String, method: Method = .post, fields: HTTPFields = [:],
        expectContinue: Bool = false, options: RequestOptions = RequestOptions()
    ) -> Upload {
        var request = HTTPRequest(method: method, url: url, fields: fields, body: .multipart(form), options: options)
        request.expectContinue = expectContinue
        return upload(request)
    }

    /// Uploads a file as the whole request body (`PUT` by default), streamed from disk (sendfile(2) on
    /// plain HTTP, 256 KiB blocks over TLS), and framed by its size. A file that changes size meanwhile fails the upload with
    /// ``HTTPWireError/localFileChanged(path:expectedSize:actualSize:)`` and the server never receives a
    /// complete-looking body.
    ///
    /// ```swift
    /// let upload = client.upload(file: "/var/backups/db.tar", to: "https://store.example.test/db.tar")
    /// ```
    public func upload(
        file path: String, to url: String, method: Method = .put, fields: HTTPFields = [:],
        expectContinue: Bool = false, options: RequestOptions = RequestOptions()
    ) -> Upload {
        var request = HTTPRequest(method: method, url: url, fields: fields, body: .file(path: path), options: options)
        request.expectContinue = expectContinue
        return upload(request)
    }

    /// Sends any request as an ``Upload``, to watch its body go out (a stream of unknown length included:
    /// its progress has no `expectedBytes`). A callback already set in ``HTTPRequest/uploadProgress`` is
    /// still called, with the same values the stream delivers.
    public func upload(_ request: HTTPRequest) -> Upload {
        Upload(client: self, request: request)
    }
}

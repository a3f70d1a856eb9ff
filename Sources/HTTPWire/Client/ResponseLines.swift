// ResponseLines: a response body read as lines of text, as they arrive (client layer).
//
// A log followed live, newline-delimited JSON (one document per line), a CSV export: the caller wants each
// line as soon as the server has sent it, without the whole body in memory. URLSession answers this with
// `AsyncBytes.lines`; this is HTTPWire's. The codec's `LineSplitter` does the cutting (CR LF, LF or CR,
// whatever pieces the network delivered), and this file only carries its lines out as Strings, decoded as
// UTF-8 with U+FFFD for a byte that is not. Unlike `AsyncBytes.lines`, empty lines are kept (a blank line
// means something in many formats) and only CR and LF end a line.

import HTTPWireCodec

extension ResponseBody {
    /// The body as lines of text, each delivered as soon as its end has arrived.
    ///
    /// ```swift
    /// let response = try await client.stream(HTTPRequest(url: "https://logs.example.test/follow"))
    /// for try await line in response.body.lines() {
    ///     print(line)
    /// }
    /// ```
    ///
    /// A line ends at CR LF, LF, or a CR alone; the line end is not part of the string. The last line is
    /// delivered when the body ends even without a line end. Bytes that are not UTF-8 become U+FFFD.
    /// A line longer than `maxLineBytes` throws ``HTTPWireError/bodyTooLarge(limit:)`` (exit 63 in the
    /// CLI's terms) and closes the connection: a server cannot make the client hold an endless line.
    /// Like the body itself, iterate the lines once.
    public func lines(maxLineBytes: Int = ResponseLines.defaultMaxLineBytes) -> ResponseLines {
        ResponseLines(body: self, maxLineBytes: maxLineBytes)
    }
}

/// The lines of a response body, from ``ResponseBody/lines(maxLineBytes:)``.
public struct ResponseLines: AsyncSequence {
    /// One line, without its line end.
    public typealias Element = String

    /// The longest line ``ResponseBody/lines(maxLineBytes:)`` accepts unless told otherwise: 1 MiB, far
    /// above any line of text a server means to send.
    public static let defaultMaxLineBytes = 1 << 20

    let body: ResponseBody
    let maxLineBytes: Int

    /// Reads the body piece by piece and hands out the lines each piece completes.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pieces: ResponseBody.AsyncIterator
        var splitter: LineSplitter
        /// Lines completed by the last piece and not yet handed out, from `next`.
        var ready: [String] = []
        var next = 0
        var isFinished = false
        /// The error that ends the lines, thrown once the lines before it have been handed out.
        var pendingError: HTTPWireError?

        /// The next line, reading from the socket only when no complete line is waiting; nil after the
        /// last one.
        @concurrent public mutating func next() async throws -> String? {
            while true {
                if next < ready.count {
                    defer { next += 1 }
                    return ready[next]
                }
                if let error = pendingError {
                    pendingError = nil
                    throw error
                }
                guard !isFinished else { return nil }
                ready.removeAll(keepingCapacity: true)
                next = 0
                let piece: ArraySlice<UInt8>?
                do {
                    piece = try await pieces.nextPiece()
                } catch {
                    isFinished = true
                    throw error
                }
                guard let piece else {
                    isFinished = true
                    if let last = splitter.finish() { ready.append(String(decoding: last, as: UTF8.self)) }
                    continue
                }
                do {
                    try splitter.feed(piece) { ready.append(String(decoding: $0, as: UTF8.self)) }
                } catch let tooLong as LineSplitter.LineTooLong {
                    // The lines the piece completed before the long one are handed out first.
                    isFinished = true
                    pendingError = .bodyTooLarge(limit: tooLong.limit)
                    pieces.owner.abandonIfUnfinished()
                }
            }
        }
    }

    /// The iterator; make one and iterate it to the end (or drop it to close the connection).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pieces: body.makeAsyncIterator(), splitter: LineSplitter(maxLineBytes: maxLineBytes))
    }
}

// Download+Segments: when a download goes over several connections, and what happens to the files when
// it does — start from a first 200 that allows it, resume from a record with segments, fall back to one
// stream, finish or start over.
// Features layer: decisions from response fields and the record, file operations through
// `DownloadPartialFile` on the blocking worker; the bytes move in `SegmentedTransfer`. It must not touch
// sockets or retry: the run loop in Download.swift decides what follows an attempt.
//
// A download is segmented only when ``DownloadOptions/segments`` asks for more than one connection and the
// first response proves that pieces from several responses will fit together (RFC 9110):
// - `Accept-Ranges: bytes` (§14.3): the server takes byte-range requests;
// - a strong `ETag` (§8.8.1, §8.8.3): byte-for-byte the same representation in every response, which is
//   what `If-Range` needs to refuse a changed file (§13.1.5); a weak tag or only a date is not enough;
// - a `Content-Length` (§8.6) of at least two minimum segments: the file can be cut before it arrives.
// Otherwise, or once a segment request was answered with a 200 for the same tag (the server ignores
// ranges after all), the download is a single stream.

import HTTPWireCodec

extension Download {
    /// True when `response` (a 200 to a request without Range) allows a segmented download.
    static func allowsSegments(_ response: HTTPStreamingResponse) -> Bool {
        guard response.status.rawValue == 200, let length = response.expectedContentLength,
            length >= 2 * SegmentPlan.minimumSegmentBytes,
            let tag = response.fields["ETag"].flatMap(EntityTag.init), !tag.isWeak,
            let ranges = response.fields["Accept-Ranges"]
        else { return false }
        // RFC 9110 §14.3: a list of range units, case-insensitive; `none` means no ranges.
        return ranges.split(separator: ",").contains { $0.trimmed().lowercased() == "bytes" }
    }

    /// How many connections this download may use now: the option's value, or one after the server
    /// showed that it ignores ranges.
    var segmentConnections: Int {
        control.withLock { $0.segmentsDisabled } ? 1 : max(1, options.segments)
    }

    /// Starts a segmented transfer from the first response (a 200 that ``allowsSegments(_:)``): the part
    /// file is opened at its full length, this response's body fills the first segment, and the other
    /// connections ask for theirs. Nil when the download should stay one stream.
    func startSegments(
        with response: HTTPStreamingResponse, to destination: String, url: String, request sent: HTTPRequest
    ) async throws -> AttemptOutcome? {
        let connections = segmentConnections
        guard connections > 1, isResumable, Self.allowsSegments(response),
            let length = response.expectedContentLength
        else { return nil }
        // With a probe, the first connection starts alone with the whole file (SegmentedTransfer).
        let fresh = SegmentPlan(length: length, connections: connections)
        guard fresh.parts.count > 1 else { return nil }
        let plan = options.segmentProbe > .zero ? SegmentPlan(length: length, connections: 1) : fresh
        let record = ResumeRecord(
            url: url, entityTag: response.fields["ETag"], lastModified: response.fields["Last-Modified"],
            expectedLength: length, committedBytes: 0)
        guard (try? record.encoded()) != nil else { return nil }
        return try await runSegments(
            plan: plan, record: record, first: response, to: destination, request: sent, connections: connections)
    }

    /// Resumes a segmented download from its record: every incomplete segment continues from its count
    /// with a Range request, over as many connections as the options allow (at least one: bytes written
    /// at scattered offsets cannot become a single stream without losing them).
    func resumeSegments(
        record: ResumeRecord, to destination: String, request sent: HTTPRequest
    ) async throws -> AttemptOutcome {
        let plan = SegmentPlan(resuming: record.segments)
        return try await runSegments(
            plan: plan, record: record.counting(0), first: nil, to: destination, request: sent,
            connections: segmentConnections)
    }

    /// Opens the part file at full length, runs the transfer, then finishes the file or discards it.
    private func runSegments(
        plan: SegmentPlan, record: ResumeRecord, first: HTTPStreamingResponse?, to destination: String,
        request sent: HTTPRequest, connections: Int
    ) async throws -> AttemptOutcome {
        let length = record.expectedLength ?? 0
        let file = DownloadPartialFile(destination: destination)
        let hashing = options.expectedSHA256 != nil
        let opened = record.counting(0, segments: plan.segments)
        try await DownloadPartialFile.runBlocking {
            try file.openSegmented(length: length, record: opened, hashing: hashing)
        }
        noteStart(offset: plan.committedBytes)
        eventSink.yield(.started(destination: destination, offset: plan.committedBytes, expectedBytes: length))
        let transfer = SegmentedTransfer(
            request: sent, client: client, file: file, record: record, connections: connections, options: options,
            countRequest: { [weak self] in self?.control.withLock { $0.requests += 1 } },
            report: { [weak self] progress in self?.reportProgress(progress) })
        let outcome: SegmentedTransfer.Outcome
        do {
            outcome = try await transfer.run(plan: plan, first: first)
        } catch {
            file.closeDescriptor()
            throw error
        }
        switch outcome {
        case .complete(let head):
            file.segmentsFinished(length: length)
            return try await finish(file, expectedLength: length, head: first.map(Self.head(of:)) ?? head)
        case .restart(let reason):
            if reason == .rangeIgnored { control.withLock { $0.segmentsDisabled = true } }
            try await DownloadPartialFile.runBlocking { try file.discard() }
            eventSink.yield(.restarted(.serverAnswer(reason)))
            return .again
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
    fileprivate func trimmed() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}

// Download+Attempt: one attempt of a download — plan from disk, one GET, act on the plan's decision, move
// the body, put the finished file in place.
// Features layer: uses `HTTPClient.stream` like any caller; every file operation goes through
// `DownloadPartialFile` on the blocking worker. It must not retry or wait: the run loop in Download.swift
// decides what happens after an attempt.
//
// The safety rules live in `ResumePlan`: bytes are appended only to a 206 that continues exactly where the
// part file ends, for the same representation; anything doubtful starts over. This file adds the order of
// effects: nothing is written before the response is known to be usable (a 404 never touches the part
// file), and the record with the validators is on disk before the first body byte.

import HTTPWireCodec

/// What an attempt achieved.
enum AttemptOutcome: Sendable {
    /// The file is complete and in place.
    case finished(DownloadResult)
    /// Another request is needed at once: the server asked for a restart, a 206 ended before the complete
    /// length, or the name chosen from the response has resumable data on disk.
    case again
}

extension Download {
    /// Runs one attempt. Throws ``HTTPWireError``, `StatusFailure` for a status the retry policy may
    /// retry, or `CancellationError`.
    func attempt() async throws -> AttemptOutcome {
        let key = try resolvedURL()
        var destination = control.withLock { $0.destination }
        var plan = ResumePlan(url: key, record: nil, partialFileSize: nil)
        if let destination {
            plan = try await planFromDisk(destination: destination, url: key)
        }

        // The options' fields replace the request's of the same name.
        var sent = request
        for field in options.fields { sent.fields.remove(name: field.name) }
        for field in options.fields { sent.fields.append(field) }
        sent.fields.remove(name: "Range")
        sent.fields.remove(name: "If-Range")
        // The download's own run loop retries (resuming from disk) and judges statuses (206, 416), so the
        // request itself neither retries nor validates; its other options are the download's.
        sent.options = options.requestOptions
        sent.options.retry = RetryPolicy.none
        sent.options.validation = ResponseValidation.acceptingAll
        // A download stores the resource's own bytes, so it never offers content codings; one that arrives
        // encoded anyway is stored decoded (see freshRecord).
        sent.options.offersContentCodings = false
        if let destination, isResumable, let record = plan.record, !record.segments.isEmpty {
            // A segmented download on disk: every segment continues (Download+Segments.swift).
            return try await resumeSegments(record: record, to: destination, request: sent)
        }
        for field in plan.requestFields { sent.fields.append(field) }
        control.withLock { $0.requests += 1 }
        let response = try await client.stream(sent)
        let status = response.status.rawValue

        if destination == nil, let directory {
            // The name is only known now. If this run has resumable data under it, ask again with a Range
            // request instead of downloading from zero; this response is dropped (its connection closes).
            let name = ContentDisposition.downloadFileName(
                fieldValue: response.fields["Content-Disposition"], urlLastPathSegment: response.url.lastPathSegment)
            if (200..<300).contains(status) {
                // Never onto an existing file: `name (1).ext` instead (DownloadFileNaming).
                let chosen = try await DownloadPartialFile.runBlocking {
                    try DownloadFileNaming.freePath(in: directory, for: name, url: key)
                }
                try await claim(chosen)
                control.withLock { $0.destination = chosen }
                destination = chosen
                let onDisk = try await planFromDisk(destination: chosen, url: key)
                if case .resume = onDisk.start { return .again }
            }
        }

        switch plan.decision(status: status, fields: response.fields) {
        case .fail(.httpStatus(let status)) where retryPolicy.retryableStatuses.contains(status):
            throw StatusFailure(status: status, fields: response.fields)
        case .fail(let error):
            throw error
        case .restartWithoutRange(let reason):
            if let destination {
                try await DownloadPartialFile.runBlocking {
                    try DownloadPartialFile(destination: destination).discard()
                }
            }
            eventSink.yield(.restarted(.serverAnswer(reason)))
            return .again
        case .complete(let length):
            guard let destination, let record = plan.record else { throw HTTPWireError.httpStatus(status) }
            let file = DownloadPartialFile(destination: destination)
            try await DownloadPartialFile.runBlocking {
                try file.open(truncatingTo: length, record: record, hashing: self.options.expectedSHA256 != nil)
            }
            noteStart(offset: length)
            eventSink.yield(.started(destination: destination, offset: length, expectedBytes: length))
            reportProgress(TransferProgress(receivedBytes: length, expectedBytes: length))
            return try await finish(file, expectedLength: length, head: Self.head(of: response))
        case .writeFromStart(let reason):
            guard let destination else { throw HTTPWireError.httpStatus(status) }
            if let reason { eventSink.yield(.restarted(.serverAnswer(reason))) }
            if let outcome = try await startSegments(with: response, to: destination, url: key, request: sent) {
                return outcome
            }
            let record = Self.freshRecord(url: key, response: response)
            return try await transfer(
                response, to: destination, offset: 0, record: record, expectedTotal: response.expectedContentLength)
        case .append(let offset, _, let completeLength):
            guard let destination else { throw HTTPWireError.httpStatus(status) }
            // Without a record this is a 206 starting at byte zero to a request without Range: odd, but
            // its bytes are the file's first ones, so they are kept like a 200's.
            let planned = plan.record ?? Self.freshRecord(url: key, response: response)
            let record = ResumeRecord(
                url: key, entityTag: planned.entityTag ?? response.fields["ETag"],
                lastModified: planned.lastModified ?? response.fields["Last-Modified"],
                expectedLength: completeLength ?? planned.expectedLength, committedBytes: offset)
            return try await transfer(
                response, to: destination, offset: offset, record: record, expectedTotal: record.expectedLength)
        }
    }

    /// Moves the body of an accepted response into the part file, then finishes when it is all there.
    private func transfer(
        _ response: HTTPStreamingResponse, to destination: String, offset: Int64, record: ResumeRecord,
        expectedTotal: Int64?
    ) async throws -> AttemptOutcome {
        let file = DownloadPartialFile(destination: destination)
        let hashing = options.expectedSHA256 != nil
        try await DownloadPartialFile.runBlocking {
            try file.open(truncatingTo: offset, record: record, hashing: hashing)
        }
        noteStart(offset: offset)
        eventSink.yield(.started(destination: destination, offset: offset, expectedBytes: expectedTotal))
        let transfer = DownloadTransfer(
            file: file, record: record, offset: offset, expectedTotal: expectedTotal, options: options,
            report: { [weak self] progress in self?.reportProgress(progress) })
        let canSplice = options.allowsZeroCopy && response.url.scheme == .http && response.expectedContentLength != nil
        do {
            try await transfer.run(
                body: response.body, canSplice: canSplice, isEncrypted: response.url.scheme == .https)
        } catch {
            file.closeDescriptor()
            throw error
        }
        if let expectedTotal, file.writtenBytes < expectedTotal {
            // A 206 for less than the rest (a server capping range sizes): ask for what is missing.
            file.closeDescriptor()
            return .again
        }
        return try await finish(file, expectedLength: expectedTotal, head: Self.head(of: response))
    }

    /// Checks the length and checksum and renames the part file onto the destination.
    func finish(
        _ file: DownloadPartialFile, expectedLength: Int64?, head: ResponseHead
    ) async throws -> AttemptOutcome {
        let expectedSHA256 = options.expectedSHA256
        let digest: SHA256Digest?
        do {
            digest = try await DownloadPartialFile.runBlocking {
                try file.finish(expectedLength: expectedLength, expectedSHA256: expectedSHA256)
            }
        } catch {
            file.closeDescriptor()
            throw error
        }
        let (requests, resumedFrom) = control.withLock { ($0.requests, $0.resumedFromBytes ?? 0) }
        return .finished(
            DownloadResult(
                location: file.destination, bytes: file.writtenBytes, resumedFromBytes: resumedFrom, sha256: digest,
                requests: requests, head: head))
    }

    /// The status line and fields of `response`, for ``DownloadResult/head``.
    static func head(of response: HTTPStreamingResponse) -> ResponseHead {
        ResponseHead(
            version: response.version, status: response.status, reason: response.reason, fields: response.fields)
    }

    /// True when the request can be continued with `Range`: a GET without a body (RFC 9110 §14.2 defines
    /// Range for GET only). Anything else starts over at every attempt.
    var isResumable: Bool { request.method == .get && request.body.isEmpty }

    /// Reads the record and part file of `destination` and plans the request; discards them first when a
    /// restart was asked for, and reports a restart when data existed but cannot be resumed.
    private func planFromDisk(destination: String, url: String) async throws -> ResumePlan {
        let file = DownloadPartialFile(destination: destination)
        let mustDiscard = control.withLock { state in
            defer { state.mustDiscard = false }
            return state.mustDiscard
        }
        if mustDiscard || !isResumable {
            let existed = try await DownloadPartialFile.runBlocking { () throws -> Bool in
                let existed = DownloadPartialFile.fileSize(atPath: file.partialPath) != nil
                try file.discard()
                return existed
            }
            if existed { eventSink.yield(.restarted(mustDiscard ? .requested : .notResumable(.methodNotResumable))) }
            if !isResumable { return ResumePlan(url: url, record: nil, partialFileSize: nil) }
        }
        let (record, size) = try await DownloadPartialFile.runBlocking { file.inspect() }
        let plan = ResumePlan(
            url: url, record: record, partialFileSize: size, requiresValidator: options.requiresValidator)
        if case .fresh(let reason) = plan.start, reason != .noPartialFile {
            eventSink.yield(.restarted(.notResumable(reason)))
        }
        return plan
    }

    /// The record for a download starting at byte zero: this response's validators and length. Values a
    /// record cannot hold (control characters) are dropped, which only costs the ability to resume.
    static func freshRecord(url: String, response: HTTPStreamingResponse) -> ResumeRecord {
        // A decoded body (Content-Encoding the server sent unasked) is not the representation a Range would
        // count in (RFC 9110 §14): without validators, ResumePlan never resumes it and starts over.
        guard response.body.owner.decoders.isEmpty else {
            return ResumeRecord(url: url, entityTag: nil, lastModified: nil, expectedLength: nil, committedBytes: 0)
        }
        let record = ResumeRecord(
            url: url, entityTag: response.fields["ETag"], lastModified: response.fields["Last-Modified"],
            expectedLength: response.expectedContentLength, committedBytes: 0)
        if (try? record.encoded()) != nil { return record }
        return ResumeRecord(url: url, entityTag: nil, lastModified: nil, expectedLength: nil, committedBytes: 0)
    }

    /// The absolute URL the record names: the URL as given, resolved against the client's base URL, with
    /// the request's query items.
    func resolvedURL() throws(HTTPWireError) -> String {
        do {
            var target: TargetURL
            if let base = client.configuration.baseURL {
                target = try TargetURL(base).resolving(url)
            } else {
                target = try TargetURL(url)
            }
            if !request.queryItems.isEmpty {
                target = target.appendingQueryItems(request.queryItems.map { (name: $0.name, value: $0.value) })
            }
            return target.description
        } catch {
            throw .invalidURL("\(error)")
        }
    }

    func noteStart(offset: Int64) {
        control.withLock { state in
            if state.resumedFromBytes == nil { state.resumedFromBytes = offset }
        }
    }

    func reportProgress(_ progress: TransferProgress) {
        control.withLock { $0.progress = progress }
        eventSink.yield(.progress(progress))
    }
}

// UploadBodyTests: bodies other than forms — a file as the whole body, a stream of unknown length sent
// chunked — checked by the digest the fixture server computed; a file that changes size while it is sent
// (the server must never receive a complete-looking body); and the memory a 200 MB upload costs.

import FixtureServer
import Foundation
import HTTPWireCodec
import Synchronization
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct UploadBodyTests {
    @Test(
        "a file as the whole body is streamed with its size as Content-Length", .timeLimit(.scaledMinutes(1)),
        arguments: UploadHarness.Transport.allCases)
    func wholeFile(transport: UploadHarness.Transport) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("backup.tar").path
        // Not a multiple of any piece or block size, so the last piece is a short one.
        let size: Int64 = (24 << 20) + 12_345
        let digest = try await UploadHarness.writeLargeFile(at: path, size: size)
        try await withFixtureServer(tls: try await UploadHarness.serverTLS(transport)) { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            for method in [Method.put, .post] {
                let response = try await client.upload(file: path, to: "upload", method: method).response
                let summary = try response.decode(UploadHarness.Summary.self, using: UploadHarness.decoder)
                #expect(summary.framing == "content-length")
                #expect(summary.size == size)
                #expect(summary.sha256 == digest)
                #expect(server.requestLog.last?.method == method)
            }
        }
    }

    @Test("an empty file is sent as Content-Length: 0 and its progress ends at zero", .timeLimit(.scaledMinutes(1)))
    func emptyFile() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("empty", [])
        try await withFixtureServer { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            let upload = client.upload(file: path, to: "upload")
            var reports: [TransferProgress] = []
            for await progress in upload.progress { reports.append(progress) }
            let summary = try await upload.response.decode(UploadHarness.Summary.self, using: UploadHarness.decoder)
            #expect(summary.size == 0 && summary.framing == "content-length")
            #expect(reports.map(\.receivedBytes) == [0])
            #expect(reports.first?.fraction == 1)
        }
    }

    @Test(
        "a stream of unknown length is sent chunked, every byte in order", .timeLimit(.scaledMinutes(1)),
        arguments: UploadHarness.Transport.allCases)
    func chunkedStream(transport: UploadHarness.Transport) async throws {
        // Pieces of uneven sizes, one of them empty (it must not end the body early).
        let sizes = [1, 0, 70_000, 3, 300_000, 16_384, 5]
        let pieces = sizes.enumerated().map { pseudoRandomBytes(count: $0.element, seed: UInt64($0.offset) + 40) }
        let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
            for piece in pieces { continuation.yield(piece) }
            continuation.finish()
        }
        try await withFixtureServer(tls: try await UploadHarness.serverTLS(transport)) { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            let upload = client.upload(HTTPRequest(method: .post, url: "upload", body: .stream(stream)))
            var reports: [TransferProgress] = []
            for await progress in upload.progress { reports.append(progress) }
            let summary = try await upload.response.decode(UploadHarness.Summary.self, using: UploadHarness.decoder)
            let all = pieces.flatMap { $0 }
            #expect(summary.framing == "chunked")
            #expect(summary.size == Int64(all.count))
            #expect(summary.sha256 == SHA256Digest.of(all)?.hexString)
            #expect(reports.last?.receivedBytes == Int64(all.count))
            #expect(reports.allSatisfy { $0.expectedBytes == nil })
        }
    }

    /// How a test changes the file once the upload is under way.
    enum FileChange: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case grows, shrinks
        var testDescription: String { "the file \(rawValue)" }
    }

    @Test(
        "a file that changes size during the upload fails it, and the server never gets a whole body",
        .timeLimit(.scaledMinutes(1)), arguments: FileChange.allCases, UploadHarness.Transport.allCases)
    func fileChangesDuringUpload(change: FileChange, transport: UploadHarness.Transport) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("growing.log").path
        let size: Int64 = 16 << 20
        try await UploadHarness.writeLargeFile(at: path, size: size)
        let lines = LockedState<[String]>([])
        let server = try await FixtureServer.start(
            tls: try await UploadHarness.serverTLS(transport), log: { line in lines.withLock { $0.append(line) } })
        let client = try await UploadHarness.client(for: server)
        // The change happens from the first progress report: the upload has started and is far from done.
        let changed = Atomic(false)
        var request = HTTPRequest(method: .put, url: "upload", body: .file(path: path))
        request.uploadProgress = { _ in
            guard !changed.exchange(true, ordering: .relaxed) else { return }
            switch change {
            case .grows:
                let handle = FileHandle(forWritingAtPath: path)
                _ = try? handle?.seekToEnd()
                try? handle?.write(contentsOf: Data("one more line\n".utf8))
                try? handle?.close()
            case .shrinks:
                truncate(path, off_t(size / 2))
            }
        }
        var thrown: (any Error)?
        do {
            _ = try await client.send(request)
        } catch {
            thrown = error
        }
        await client.shutdown()
        await server.stop()
        let error = try #require(thrown as? HTTPWireError, "\(String(describing: thrown))")
        guard case .localFileChanged(let reportedPath, let expectedSize, let actualSize) = error else {
            Issue.record("expected localFileChanged, got \(error)")
            return
        }
        #expect(reportedPath == path)
        #expect(expectedSize == size)
        #expect(actualSize == (change == .grows ? size + 14 : size / 2))
        // The server saw the body end early (its decoder reports the truncation) and answered nothing.
        let log = lines.withLock { $0 }
        #expect(!log.contains { $0.contains("-> 200") }, "\(log)")
        #expect(log.contains { $0.contains("PUT /upload") || $0.contains("bad request") }, "\(log)")
    }

    @Test(
        "a 200 MB upload keeps the process's memory flat", .timeLimit(.scaledMinutes(2)),
        arguments: UploadHarness.Transport.allCases)
    func memoryStaysFlat(transport: UploadHarness.Transport) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("large.bin").path
        let size: Int64 = 200_000_000
        try await UploadHarness.writeLargeFile(at: path, size: size)
        // Over TLS the file passes through user space in blocks: each must be released once written.
        try await withFixtureServer(tls: try await UploadHarness.serverTLS(transport)) { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            var form = MultipartForm()
            form.addField(name: "kind", value: "archive")
            form.addFile(name: "archive", path: path)
            // Warm up (connection, code paths), then measure the peak from here on.
            _ = try await client.upload(file: try directory.file("small", [1, 2, 3]), to: "sink").response
            // VmHWM is the whole process's, and other suites allocate in parallel; alone, this test grows
            // the peak by a few MiB. So it measures up to three times and needs one clean measurement: an
            // upload that held the file would grow the peak by 200 MB every time.
            var growths: [Int64] = []
            for _ in 0..<3 {
                let isReset = UploadHarness.resetPeakResident()
                let before = try #require(isReset ? UploadHarness.residentBytes() : UploadHarness.peakResidentBytes())
                let fileResponse = try await client.upload(file: path, to: "sink").response
                let formResponse = try await client.upload(form, to: "sink").response
                let after = try #require(UploadHarness.peakResidentBytes())
                #expect(fileResponse.fields["X-Received-Bytes"] == String(size))
                #expect(Int64(formResponse.fields["X-Received-Bytes"] ?? "") ?? 0 > size)
                growths.append(after - before)
                if after - before < 48 << 20 { break }
            }
            #expect(growths.contains { $0 < 48 << 20 }, "peak grew by \(growths.map { $0 >> 20 }) MiB")
        }
    }
}

extension UploadBodyTests {
    /// Held only by a reactor operation's closure.
    final class Token: Sendable {}

    @Test("a finished reactor operation lets go of what its closure held", .timeLimit(.scaledMinutes(1)))
    func finishedOperationReleasesItsClosure() async throws {
        // Over TLS each block of a file upload is held by the closure of the write that sent it. While a long
        // wait (the response head) sits at the top of the reactor's deadline heap, finished writes stay in
        // the heap until it is swept, so a closure kept there would keep its block (hundreds of MiB).
        let server = try EchoServer.start()
        let deadline = Deadline.after(.seconds(20).scaled)
        let waiting = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: deadline)
        let other = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: deadline)
        // The long wait: nothing is ever sent on `waiting`, and its deadline is the earliest.
        let longWait = Task {
            var buffer: [UInt8] = []
            return try await waiting.read(
                into: &buffer, maxBytes: 16, deadline: .after(.seconds(10).scaled))
        }
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            let descriptor = other.descriptor
            let hasWaited = Atomic(false)
            // The first attempt sends one byte and waits for its echo (so the operation is parked and in the
            // heap); a later attempt reads the echo and finishes.
            let echoed: Int = try await Reactor.shared.perform(
                on: descriptor, deadline: .after(.seconds(15).scaled)
            ) {
                _ = token
                var byte: UInt8 = 0x2A
                if !hasWaited.load(ordering: .relaxed) {
                    hasWaited.store(true, ordering: .relaxed)
                    _ = Glibc.write(descriptor.rawValue, &byte, 1)
                    return .wait(.readable)
                }
                return Glibc.read(descriptor.rawValue, &byte, 1) == 1 ? .finished(1) : .wait(.readable)
            }
            #expect(echoed == 1 && hasWaited.load(ordering: .relaxed))
        }
        // The reactor thread resumes the waiting task first and drops the finished operation just after, so
        // the release is awaited, not assumed to have happened at the resume (a leak never gets there).
        #expect(await eventually { weakToken == nil }, "the finished operation still holds its closure")
        longWait.cancel()
        _ = try? await longWait.value
        await other.close()
        await waiting.close()
        await server.stop()
    }
}

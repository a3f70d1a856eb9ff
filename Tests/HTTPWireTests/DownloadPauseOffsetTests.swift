// DownloadPauseOffsetTests: the offset a `.paused` event reports is the offset the resume asks for. The
// `wire demo` pause/resume step once saw them differ under load: the event showed the last progress
// snapshot (throttled to `progressInterval`), the record counted every byte written since.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct DownloadPauseOffsetTests {
    @Test("the paused event's offset is exactly where resume continues", .timeLimit(.scaledMinutes(2)))
    func pausedOffsetIsResumeOffset() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(1_000_000)
        let server = try DownloadTestServer(content: content, script: [.stallAfter(300_000)])
        let destination = scratch.file("p.bin")
        var options = DownloadOptions()
        // A snapshot that never comes on its own: the paused event must not depend on one.
        options.progressInterval = .seconds(3600)
        let download = HTTPClient().download(from: server.url, to: destination, options: options)
        let arrived = await eventually(within: .seconds(60).scaled) {
            (try? FileManager.default.attributesOfItem(atPath: destination + ".part"))?[.size] as? Int == 300_000
        }
        try #require(arrived, "300,000 bytes in the part file")
        download.pause()
        var pausedAt: Int64?
        for await event in download.events {
            if case .paused(let progress) = event {
                pausedAt = progress.receivedBytes
                break
            }
        }
        #expect(pausedAt == 300_000)
        download.resume()
        let result = try await download.result()
        await server.stop()
        #expect(result.resumedFromBytes == 0)
        #expect(server.requests.ranges.last == "bytes=300000-")
        #expect(await DownloadScratch.contents(destination) == content)
    }
}

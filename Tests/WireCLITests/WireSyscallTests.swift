// WireSyscallTests: the system calls "Life of a request" shows for one `wire get` still happen, in that
// order (docs test). When strace is installed (make deps does not need it; Debian's strace), the test runs
// `strace -f` on `wire get URL/json` against the in-process fixture server and checks that the call names of
// the article's sequence diagram — the lines of its block that start with a call — are a subsequence of the
// calls the trace recorded on the request's socket path (repeated reads counted once: their number depends on
// timing). Without strace it is skipped. The traced `wire get` has a 20 s timeout of its own, and the whole
// strace is killed after 60 s (times TestTime.scale), so a stuck run fails instead of hanging the suite.

import FixtureServer
import Foundation
import TestSupport
import Testing

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is not installed"))
struct WireSyscallTests {
    static let article =
        String(#filePath.split(separator: "/Tests/WireCLITests/").first ?? "")
        + "/Sources/HTTPWire/HTTPWire.docc/LifeOfARequest.md"

    /// The call names of the article's sequence diagram, in order.
    static func diagramCalls() throws -> [String] {
        let text = try String(contentsOfFile: article, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## The system calls of one GET").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```").dropFirst().first)
        return block.split(separator: "\n").compactMap { line in
            line.firstMatch(of: #/^\s+([a-z_]+)\(/#).map { String($0.output.1) }
        }
    }

    /// `calls` with each run of one name kept once: [a, b, b, a] becomes [a, b, a].
    static func collapsingRuns(_ calls: [String]) -> [String] {
        calls.reduce(into: []) { result, call in if result.last != call { result.append(call) } }
    }

    @Test("wire get makes the system calls the article's diagram shows, in its order", .timeLimit(.scaledMinutes(1)))
    func callsInOrder() async throws {
        let calls = try Self.diagramCalls()
        try #require(calls.count >= 8, "the diagram lists \(calls)")
        try await withFixtureServer { server in
            let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wire-\(UUID()).strace").path
            defer { try? FileManager.default.removeItem(atPath: trace) }
            let traced = Set(calls).sorted().joined(separator: ",")
            // LeakSanitizer cannot run under ptrace and stops an ASan build of wire (`make sanitize`) at exit,
            // so leak checking is off for this one traced run; ASan's other checks stay on.
            let result = try await WireProcess.shell(
                "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "
                    + "timeout --kill-after=5 \(Int(60 * TestTime.scale)) strace -f -qq -o \(trace) -e trace=\(traced) "
                    + "\"$WIRE\" get --timeout 20 \(server.baseURL)json")
            try #require(result.status == 0, "strace or wire failed: \(result.standardError)")
            let recorded = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap {
                line -> String? in
                // "PID call(args) = result"; resumed halves ("<... call resumed>") are left out.
                guard let match = line.firstMatch(of: #/^\d+\s+([a-z_]+)\(/#) else { return nil }
                // Only the request's socket path counts: calls on other descriptors (the reactor's own
                // eventfd, the loader's files) would make any order match.
                let call = String(match.output.1)
                if call == "write" { return line.contains("write(1,") ? call : nil }
                if call == "socket" { return line.contains("AF_INET") ? call : nil }
                return call
            }
            // How many reads a response takes depends on timing (an EAGAIN first, head and body together or
            // apart), so a run of the same call counts once, in the diagram and in the trace alike.
            var remaining = Self.collapsingRuns(recorded)[...]
            for call in Self.collapsingRuns(calls) {
                let found = remaining.firstIndex(of: call)
                #expect(found != nil, "\(call) does not follow the calls before it in the trace:\n\(recorded)")
                guard let found else { return }
                remaining = remaining[(found + 1)...]
            }
        }
    }
}

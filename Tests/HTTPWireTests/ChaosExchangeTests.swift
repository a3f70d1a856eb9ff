// ChaosExchangeTests: seeded exchanges of every kind through the chaos relay, between the client and the
// fixture server and nginx, plain and TLS (issue #17 item 4).
//
// Each exchange must end with the right bytes or with a typed HTTPWireError its fault explains, within its
// deadline; every client socket must be closed afterwards, and no descriptor found leaked; a failed
// download leaves no file and resumes to the right SHA-256 (see ChaosExchange). A failure prints the seed:
//
//     HTTPWIRE_CHAOS_SEED=1234 swift test --skip-build --filter ChaosExchangeTests    # replay one exchange
//     HTTPWIRE_CHAOS_EXCHANGES=4000 swift test --skip-build --filter ChaosExchangeTests   # what make chaos runs
//
// HTTPWIRE_CHAOS_STRICT_DESCRIPTORS=1 (make chaos, which runs each test alone) also checks that the count of
// open descriptors is back where it started.
//
// `make test` runs HTTPWIRE_CHAOS_EXCHANGES (default 100) exchanges from seed HTTPWIRE_CHAOS_FIRST_SEED
// (default 1), four at a time; the seed's remainder by 4 picks the kind, so 4N exchanges are N of each.

import FixtureServer
import HTTPWire
import TestSupport
import Testing

@testable import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("chaos relay exchanges")
struct ChaosExchangeTests {
    /// The seeds to run: one when HTTPWIRE_CHAOS_SEED is set, else HTTPWIRE_CHAOS_EXCHANGES from
    /// HTTPWIRE_CHAOS_FIRST_SEED.
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["HTTPWIRE_CHAOS_SEED"], let seed = UInt64(text) { return [seed] }
        let count = environment["HTTPWIRE_CHAOS_EXCHANGES"].flatMap { Int($0) } ?? 100
        let first = environment["HTTPWIRE_CHAOS_FIRST_SEED"].flatMap { UInt64($0) } ?? 1
        return (0..<UInt64(max(0, count))).map { first + $0 }
    }

    /// Tallies of a run, for the figures in docs/reliability.md.
    struct Tally: Sendable, CustomStringConvertible {
        var delivered: [String: Int] = [:]
        var failed: [String: Int] = [:]
        var resumed: [String: Int] = [:]
        var errors: [String: Int] = [:]
        /// Exchanges that failed the test.
        var broken = 0

        var description: String {
            func line(_ counts: [String: Int]) -> String {
                counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            return "delivered: \(line(delivered)); typed errors: \(line(failed)); "
                + "downloads failed then resumed: \(line(resumed)); errors seen: \(line(errors)); failing the test: \(broken)"
        }
    }

    @Test(
        "fixture server: every seeded exchange ends with the right bytes or a typed error the fault explains",
        .timeLimit(.scaledMinutes(Self.seeds.count > 200 ? 60 : 3)))
    func fixtureExchanges() async throws {
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")))
        try await withFixtureServer { plain in
            try await withFixtureServer(tls: tls) { secure in
                try await Self.run(Self.seeds, upstream: .fixture) { $0 ? secure.port : plain.port }
            }
        }
    }

    @Test(
        "nginx: every seeded GET and download ends with the right bytes or a typed error the fault explains",
        .timeLimit(.scaledMinutes(Self.seeds.count > 200 ? 60 : 3)))
    func nginxExchanges() async throws {
        // A quarter as many as against the fixture server (two kinds, not four; nginx's start costs time).
        let seeds = Self.seeds.count == 1 ? Self.seeds : Array(Self.seeds.prefix(max(1, Self.seeds.count / 4)))
        try await withNginx(
            files: ChaosExchange.nginxFiles, certificate: try await TestCertificates.path("leaf.pem"),
            key: try await TestCertificates.path("leaf.key")
        ) { nginx in
            try await Self.run(seeds, upstream: .nginx) { $0 ? nginx.tlsPort : nginx.plainPort }
        }
    }

    /// Runs `seeds` four at a time against the upstream on `port(isTLS)`; records each failure (with its
    /// seed) and prints the tally.
    static func run(
        _ seeds: [UInt64], upstream: ChaosExchange.Upstream, port: @escaping @Sendable (Bool) -> Int
    ) async throws {
        let leakedBefore = FileDescriptor.leakedCount
        // With nothing else running (make chaos runs each test alone), every descriptor the exchanges
        // opened — sockets, part files, records — must be closed again at the end.
        let isStrict = ProcessInfo.processInfo.environment["HTTPWIRE_CHAOS_STRICT_DESCRIPTORS"] == "1"
        let openBefore = FileDescriptor.openCount
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "httpwire-chaos-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let caPath = try await TestCertificates.path("ca.pem")
        let started = ContinuousClock.now
        let tally = TallyBox()
        await withTaskGroup(of: Void.self) { group in
            for (position, seed) in seeds.enumerated() {
                // Four at a time: wait for one to end before starting the fifth.
                if position >= 4 { await group.next() }
                group.addTask {
                    let exchange = ChaosExchange(seed: seed, upstream: upstream)
                    let result = await exchange.run(
                        port: port(exchange.isTLS), trustRoot: exchange.isTLS ? caPath : nil, directory: directory)
                    tally.record(result, kind: exchange.kind.rawValue + (exchange.isTLS ? "/tls" : "/plain"))
                }
            }
        }
        let figures = tally.value
        print("chaos (\(upstream.rawValue)): \(seeds.count) exchanges in \(ContinuousClock.now - started): \(figures)")
        #expect(FileDescriptor.leakedCount == leakedBefore, "a descriptor was closed by its deinit, not its owner")
        if isStrict {
            let isBack = await eventually { FileDescriptor.openCount == openBefore }
            // Fewer than before means another test in this process closed descriptors of its own meanwhile:
            // the strict count only holds for a test running alone.
            let openAfter = FileDescriptor.openCount
            let hint = openAfter < openBefore ? " (fewer: another test ran beside it; make chaos runs each alone)" : ""
            #expect(isBack, "\(openAfter) descriptors open after the run, \(openBefore) before\(hint)")
        }
        // The relay must really break things: a run of many exchanges that never met an error (or never
        // succeeded) tests nothing.
        if seeds.count >= 20 {
            #expect(!figures.failed.isEmpty || !figures.resumed.isEmpty, "no exchange met an error: \(figures)")
            #expect(!figures.delivered.isEmpty, "no exchange succeeded: \(figures)")
        }
    }

    /// The tally, shared by the exchanges of a run.
    final class TallyBox: Sendable {
        private let state = LockedState(Tally())

        var value: Tally { state.withLock { $0 } }

        /// Counts `result`; a failure is recorded as an issue of the test, with its seed.
        func record(_ result: Result<ChaosExchange.Outcome, ChaosExchange.Failure>, kind: String) {
            state.withLock { tally in
                switch result {
                case .success(.delivered):
                    tally.delivered[kind, default: 0] += 1
                case .success(.failed(let error)):
                    tally.failed[kind, default: 0] += 1
                    tally.errors[ChaosExchangeTests.name(of: error), default: 0] += 1
                case .success(.resumed(let error, _)):
                    tally.resumed[kind, default: 0] += 1
                    tally.errors[ChaosExchangeTests.name(of: error), default: 0] += 1
                case .success(.refused(let status)):
                    tally.failed[kind, default: 0] += 1
                    tally.errors["status \(status) after a half-close", default: 0] += 1
                case .failure:
                    tally.broken += 1
                }
            }
            if case .failure(let failure) = result { Issue.record(Comment(rawValue: failure.message)) }
        }
    }

    /// The error's case name without its values, for the tally.
    static func name(of error: HTTPWireError) -> String {
        let text = String(describing: Mirror(reflecting: error).children.first?.label ?? "\(error)")
        guard case .malformedResponse(let codec) = error else { return text }
        return "malformedResponse." + (Mirror(reflecting: codec).children.first?.label ?? "\(codec)")
    }
}

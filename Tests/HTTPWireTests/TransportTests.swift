// TransportTests: the parent suite of every transport test, and the helpers they share.
//
// The transport suites count the process's open descriptors and threads, so they must not run beside each
// other: the parent suite is serialized, and every transport suite is nested in it (in its own file,
// through an extension). Helpers: TLS contexts from the certificates TestSupport makes once per test run
// (Fixtures/tls/make-certs.sh), an echo server on 127.0.0.1:0 built on `Listener` (its tasks on FixtureServer's ServerExecutor,
// so it answers however busy the cooperative pool is), and probes of /proc/self.

import FixtureServer
import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite(.serialized) struct TransportTests {}

/// Reads of /proc/self that show leaks and thread growth.
enum ProcessProbe {
    /// Entries of /proc/self/fd: every open descriptor of the process.
    static func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// What each open descriptor refers to ("socket:[123]", "pipe:[456]", a path), for failure messages.
    static func openDescriptorTargets() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.sorted().map { name in
            "\(name)=" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? "?")
        }
    }

    /// Entries of /proc/self/task: the process's threads, leaving out the DedicatedThreads that the waits of
    /// tests running in parallel (subprocesses, large files) start and end at any moment.
    static func threadCount() -> Int {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return -1 }
        return threads.filter { thread in
            let name = try? String(contentsOfFile: "/proc/self/task/\(thread)/comm", encoding: .utf8)
            return name?.trimmingCharacters(in: .newlines) != DedicatedThread.threadName
        }.count
    }
}

/// TLS contexts from TestSupport's TestCertificates (the files of make-certs.sh, made once per test run).
extension TestCertificates {
    /// A server context presenting `leafName`.pem with its key.
    static func serverContext(_ leafName: String, clientRoots: [PEMSource] = []) async throws -> TLSContext {
        try TLSContext(
            server: TLSServerConfiguration(
                certificateChain: .file(path: try await path(leafName + ".pem")),
                privateKey: .file(path: try await path(leafName + ".key")), clientCertificateTrustRoots: clientRoots
            ).transportSettings)
    }

    /// A client context trusting only the test CA (not the system store).
    static func clientContext(trusting roots: [PEMSource]? = nil) async throws -> TLSContext {
        let trusted: [PEMSource]
        if let roots { trusted = roots } else { trusted = [.file(path: try await path("ca.pem"))] }
        return try TLSContext(
            client: TLSConfiguration(trustsSystemRoots: false, additionalTrustRoots: trusted).transportSettings)
    }
}

/// An in-process server on 127.0.0.1:0 that echoes each connection's bytes back until end of stream.
struct EchoServer: Sendable {
    let listener: Listener
    let task: Task<Void, Never>

    var port: Int { listener.port }

    /// Starts accepting; with `tls`, each connection is wrapped in a server-side TLS stream first.
    static func start(tls: TLSContext? = nil, host: String = "127.0.0.1") throws -> EchoServer {
        let listener = try Listener.bind(host: host, port: 0)
        let task = Task(executorPreference: ServerExecutor.shared) {
            await withTaskGroup(of: Void.self) { group in
                while let socket = try? await listener.accept() {
                    group.addTask {
                        let connection: any ByteStream
                        if let tls {
                            guard let stream = try? await TLSStream.accept(over: socket, context: tls, deadline: .never)
                            else { return }
                            connection = stream
                        } else {
                            connection = socket
                        }
                        await echo(connection)
                    }
                }
            }
        }
        return EchoServer(listener: listener, task: task)
    }

    private static func echo(_ connection: any ByteStream) async {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64 * 1024)
        while let count = try? await connection.read(into: &buffer, maxBytes: 64 * 1024, deadline: .never), count > 0 {
            guard (try? await connection.write(buffer[...], deadline: .never)) != nil else { break }
            buffer.removeAll(keepingCapacity: true)
        }
        await connection.close()
    }

    /// Stops accepting and waits until every connection has been closed.
    func stop() async {
        await listener.close()
        await task.value
    }
}

extension ByteStream {
    /// Reads until `count` bytes arrived or the stream ended.
    func read(exactly count: Int, deadline: Deadline = .after(.seconds(20).scaled)) async throws
        -> [UInt8]
    {
        var received: [UInt8] = []
        received.reserveCapacity(count)
        while received.count < count {
            let got = try await read(into: &received, maxBytes: count - received.count, deadline: deadline)
            if got == 0 { break }
        }
        return received
    }
}

/// Bytes that differ from position to position (so an offset mistake shows), from a fixed seed.
func patternBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}

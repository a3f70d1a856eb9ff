// FixtureServerExecutorTests: the fixture server answers while every thread of Swift's cooperative pool is
// blocked — the property that lets a test run beside others that are slow to give their threads back.
//
// The test occupies as many pool threads as the machine has cores with tasks that block on a semaphore,
// then, from a thread of its own, sends requests with plain blocking system calls (no reactor, no task)
// and reads the answers; only then are the pool's threads released. A server whose tasks needed the pool —
// to run, or to wake from a pause (`/delay`) — would not answer until the release, and the read would time
// out. The pool is blocked for milliseconds.

import FixtureServer
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite struct FixtureServerExecutorTests {
    @Test("the fixture server answers while the cooperative pool is blocked", .timeLimit(.scaledMinutes(1)))
    func answersWithoutThePool() async throws {
        try await withFixtureServer { server in
            let width = ProcessInfo.processInfo.activeProcessorCount
            let blocker = PoolBlocker()
            for _ in 0..<width {
                Task.detached { blocker.block() }
            }
            let port = server.port
            let seconds = Int((10 * TestTime.scale).rounded(.up))
            let answers = await DedicatedThread.run { () -> [String] in
                defer { blocker.release(width) }
                // Once every blocker holds its thread (or after a while: the pool may be busy with others).
                let deadline = Date().addingTimeInterval(Double(seconds))
                while blocker.blockedCount < width && Date() < deadline { usleep(1000) }
                return ["/json", "/delay?ms=20"].map { BlockingHTTP.get($0, port: port, timeoutSeconds: seconds) }
            }
            for answer in answers {
                #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "the server answered \(answer.debugDescription)")
            }
        }
    }
}

/// Tasks that each hold a thread of the cooperative pool until released.
final class PoolBlocker: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let blocked = Atomic<Int>(0)

    /// How many tasks are blocked now.
    var blockedCount: Int { blocked.load(ordering: .acquiring) }

    /// Blocks the calling thread until `release`; called from a task, it holds a pool thread.
    func block() {
        blocked.add(1, ordering: .releasing)
        semaphore.wait()
        blocked.subtract(1, ordering: .releasing)
    }

    /// Lets `count` blocked tasks go.
    func release(_ count: Int) {
        for _ in 0..<count { semaphore.signal() }
    }
}

/// One HTTP/1.1 GET with blocking system calls, for a thread that is not part of the pool.
enum BlockingHTTP {
    /// Sends `GET path` to 127.0.0.1:`port` with `Connection: close` and returns what arrived until the
    /// server closed or `timeoutSeconds` passed without a byte (then what arrived so far, maybe nothing).
    static func get(_ path: String, port: Int, timeoutSeconds: Int) -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return "socket failed: errno \(errno)" }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return "connect failed: errno \(errno)" }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            return "send failed: errno \(errno)"
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

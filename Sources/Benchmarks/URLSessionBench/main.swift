// URLSessionBench: the same workloads as WireBench, done with FoundationNetworking's URLSession
// (a program run by `make bench`, not a test). Benchmark layer: the reference point a Swift user on Linux
// already has. It lives in its own executable target so that HTTPWire itself never imports Foundation or
// FoundationNetworking; NetBench starts it as a child and times it from start to exit, like curl.
//
//   URLSessionBench discard URL                    read the body through a delegate and drop it
//   URLSessionBench sequential URL COUNT           COUNT GETs one after another on one session
//   URLSessionBench concurrent URL COUNT IN_FLIGHT COUNT GETs, IN_FLIGHT at a time
//   URLSessionBench put-file URL PATH              PUT a file with an upload task
//
// There is no HTTPS row: swift-corelibs-foundation cannot be told to trust a private CA for one session.

import Foundation
import FoundationNetworking

/// A workload failed: the message goes to standard error and the exit status is 1.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

/// Counts body bytes as they arrive and drops them, so a 1 GiB body is never held in memory.
final class DiscardingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Written on the session's delegate queue, read after `done` is signalled.
    var receivedBytes: Int64 = 0
    var failure: (any Error)?
    var status = 0
    let done = DispatchSemaphore(value: 0)

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        receivedBytes += Int64(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        failure = error
        done.signal()
    }
}

func discard(url: URL) throws {
    let delegate = DiscardingDelegate()
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    session.dataTask(with: url).resume()
    delegate.done.wait()
    if let failure = delegate.failure { throw failure }
    guard delegate.status == 200, delegate.receivedBytes > 0 else {
        throw BenchFailure(description: "status \(delegate.status), \(delegate.receivedBytes) bytes")
    }
    session.invalidateAndCancel()
}

/// One GET, checked.
func get(_ url: URL, on session: URLSession) async throws {
    let (data, response) = try await session.data(from: url)
    guard (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty else {
        throw BenchFailure(description: "unexpected response \(response)")
    }
}

func concurrent(url: URL, count: Int, inFlight: Int) async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = inFlight
    let session = URLSession(configuration: configuration)
    try await withThrowingTaskGroup(of: Void.self) { group in
        var started = 0
        while started < min(inFlight, count) {
            started += 1
            group.addTask { try await get(url, on: session) }
        }
        while try await group.next() != nil {
            if started < count {
                started += 1
                group.addTask { try await get(url, on: session) }
            }
        }
    }
}

func putFile(url: URL, path: String) async throws {
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    let (_, response) = try await URLSession.shared.upload(for: request, fromFile: URL(fileURLWithPath: path))
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else { throw BenchFailure(description: "status \(status)") }
}

func run(_ arguments: [String]) async throws {
    guard arguments.count >= 2, let url = URL(string: arguments[1]) else {
        throw BenchFailure(description: "usage: URLSessionBench discard|sequential|concurrent|put-file URL ...")
    }
    switch (arguments[0], arguments.count) {
    case ("discard", 2):
        try discard(url: url)
    case ("sequential", 3):
        let session = URLSession(configuration: .ephemeral)
        for _ in 0..<(Int(arguments[2]) ?? 0) { try await get(url, on: session) }
    case ("concurrent", 4):
        try await concurrent(url: url, count: Int(arguments[2]) ?? 0, inFlight: Int(arguments[3]) ?? 1)
    case ("put-file", 3):
        try await putFile(url: url, path: arguments[2])
    default:
        throw BenchFailure(description: "unknown workload \(arguments.joined(separator: " "))")
    }
}

do {
    try await run(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("URLSessionBench: \(error)\n".utf8))
    exit(1)
}

// DroppingServer: a raw loopback server that drops a kept-alive connection after reading its second request,
// without a byte of answer, as a server does whose idle timeout fires just as the request arrives (test
// support for the client's retry rule). Built on the transport's Listener, so no HTTP library is involved;
// its task runs on FixtureServer's ServerExecutor, like every test server, so a busy pool cannot silence it.

import FixtureServer
import HTTPWireCodec
import TestSupport

@testable import HTTPWire
@testable import HTTPWireTransport

/// A one-route server that answers the first request of its first connection with "first", reads the
/// second request and closes without a byte of answer (a server that timed the connection out as the
/// request arrived), and answers "retried" on every later connection.
struct DroppingServer: Sendable {
    let listener: Listener
    let task: Task<Void, Never>
    var port: Int { listener.port }

    static func start() throws -> DroppingServer {
        let listener = try Listener.bind()
        let task = Task(executorPreference: ServerExecutor.shared) {
            guard let first = try? await listener.accept() else { return }
            _ = try? await readRequest(first)
            try? await first.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst".utf8), deadline: .never)
            _ = try? await readRequest(first)
            await first.close()
            while let next = try? await listener.accept() {
                _ = try? await readRequest(next)
                try? await next.write(
                    Array("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nretried".utf8),
                    deadline: .never)
                await next.close()
            }
        }
        return DroppingServer(listener: listener, task: task)
    }

    /// Reads one request: the head, and the body it announces (Content-Length or chunked up to "0\r\n\r\n").
    private static func readRequest(_ socket: TCPSocket) async throws {
        var decoder = RequestDecoder()
        var buffer: [UInt8] = []
        while true {
            switch try decoder.nextEvent() {
            case .end, .paused: return
            case .head, .body: continue
            case .needMoreData:
                buffer.removeAll(keepingCapacity: true)
                let count = try await socket.read(
                    into: &buffer, maxBytes: 65536, deadline: .after(.seconds(10).scaled))
                decoder.feed(count == 0 ? [] : buffer[...])
                if count == 0 { return }
            }
        }
    }

    func stop() async {
        await listener.close()
        task.cancel()
        await task.value
    }
}

// BenchServer: the fixture server in a process of its own, for the benchmark rows nginx cannot serve
// (a program run by `make bench`, not a test). Benchmark layer: nginx's /gzip/ location is chunked but
// compressed, so the 16 KiB-chunk download row uses FixtureServer's `/chunked?chunks=N&size=16384`; and
// nginx's only upload location stores the body in a temp file, so the upload rows PUT to `/sink`, which
// reads the body in 1 MiB reads, drops it and checks its length. Every contender talks to this same
// process. Running it outside the measured process keeps its CPU time and memory out of the client's
// figures (the driver reads each child's own peak RSS).
//
//   BenchServer [PORT]    listens on 127.0.0.1:PORT (0 or absent: any free port), prints "PORT\n", serves
//                         until its standard input closes (so it never outlives the driver that started it)

import FixtureServer
import Glibc

let requestedPort = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0
do {
    let server = try await FixtureServer.start(port: requestedPort)
    let line = Array("\(server.port)\n".utf8)
    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    // Wait for the driver to close our standard input, on a thread of our own: the server's tasks keep
    // the cooperative pool.
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
        let thread = Thread { finished.resume() }
        thread.start()
    }
    await server.stop()
} catch {
    let message = Array("BenchServer: \(error)\n".utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// A detached POSIX thread that reads standard input to its end, then runs `onEnd`.
final class Thread: @unchecked Sendable {
    private let onEnd: @Sendable () -> Void

    init(onEnd: @escaping @Sendable () -> Void) {
        self.onEnd = onEnd
    }

    func start() {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { argument in
                let owner = Unmanaged<Thread>.fromOpaque(argument!).takeRetainedValue()
                var byte: UInt8 = 0
                while read(0, &byte, 1) > 0 {}
                owner.onEnd()
                return nil
            }, box)
        pthread_detach(thread)
    }
}

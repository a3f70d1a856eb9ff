// BenchEnvironment: everything the network benchmarks run against, set up once and torn down at the end
// (benchmark layer): a work directory on tmpfs, the 1 GiB and small files, throwaway TLS certificates, nginx
// on loopback (plain and TLS) and BenchServer for the chunked row and the upload sink. Set-up is never timed.

import Foundation
import Glibc

/// Paths, ports and servers of one benchmark run.
final class BenchEnvironment {
    /// The work directory: /dev/shm when it has room for the files and uploads, else /tmp.
    let root: String
    /// The repository root (Fixtures/ is read from here).
    let repository: String
    /// Where the benchmark executables and `wire` were built.
    let binaries: String
    /// Size of the large file.
    let largeBytes: Int64
    let nginxDirectory: String
    private(set) var plainPort = 0
    private(set) var tlsPort = 0
    private(set) var fixturePort = 0
    private var fixtureServer: (pid: pid_t, input: Int32)?
    /// Standard error of every child goes here; printed when a run fails.
    let errorLog: String

    init(repository: String, binaries: String, largeBytes: Int64) {
        self.repository = repository
        self.binaries = binaries
        self.largeBytes = largeBytes
        // Two copies of the large file may exist at once (the served one and an upload or download), plus
        // nginx's temporary body file: ask for four times its size.
        root = Self.freeBytes(at: "/dev/shm") > 4 * largeBytes ? "/dev/shm/httpwire-bench" : "/tmp/httpwire-bench"
        nginxDirectory = root + "/nginx"
        errorLog = "/tmp/httpwire-bench-children.log"
        unlink(errorLog)
    }

    var largeFile: String { nginxDirectory + "/www/large.bin" }
    var caFile: String { root + "/tls/ca.pem" }
    var plainURL: String { "http://127.0.0.1:\(plainPort)/" }
    var tlsURL: String { "https://127.0.0.1:\(tlsPort)/" }
    var fixtureURL: String { "http://127.0.0.1:\(fixturePort)/" }
    var uploadDirectory: String { nginxDirectory + "/upload" }
    func binary(_ name: String) -> String { binaries + "/" + name }

    /// Creates the files, the certificates, and starts nginx and BenchServer.
    func start() throws {
        ChildProcess.shell("rm -rf '\(root)'")
        try FileManager.default.createDirectory(atPath: nginxDirectory + "/www", withIntermediateDirectories: true)
        try writeLargeFile()
        // A small body for the request-rate rows: 512 bytes, so per-request costs dominate.
        try Data(repeating: UInt8(ascii: "x"), count: 512).write(
            to: URL(fileURLWithPath: nginxDirectory + "/www/small.txt"))
        guard ChildProcess.shell("sh '\(repository)/Fixtures/tls/make-certs.sh' '\(root)/tls' >/dev/null 2>&1") == 0
        else {
            throw SpawnFailure(description: "make-certs.sh failed")
        }
        let ports = try output(
            "bash '\(repository)/Fixtures/nginx/nginx-loopback.sh' start '\(nginxDirectory)' '\(root)/tls/leaf.pem' '\(root)/tls/leaf.key'"
        ).split(separator: " ").compactMap { Int($0) }
        guard ports.count == 2 else { throw SpawnFailure(description: "nginx did not start: \(ports)") }
        (plainPort, tlsPort) = (ports[0], ports[1])
        let server = try ChildProcess.startServer([binary("BenchServer")], errorLog: errorLog)
        guard let port = Int(server.line) else {
            throw SpawnFailure(description: "BenchServer printed '\(server.line)'")
        }
        fixtureServer = (server.pid, server.input)
        fixturePort = port
    }

    /// Stops the servers and removes the work directory.
    func stop() {
        if let fixtureServer { ChildProcess.stopServer(pid: fixtureServer.pid, input: fixtureServer.input) }
        fixtureServer = nil
        ChildProcess.shell(
            "bash '\(repository)/Fixtures/nginx/nginx-loopback.sh' stop '\(nginxDirectory)' >/dev/null 2>&1")
        ChildProcess.shell("rm -rf '\(root)'")
    }

    /// The large file: 1 MiB of pseudo-random bytes repeated (incompressible enough, cheap to make).
    private func writeLargeFile() throws {
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in block.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            block[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let file = open(largeFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard file >= 0 else { throw SpawnFailure(description: "cannot create \(largeFile)") }
        defer { close(file) }
        for _ in 0..<(largeBytes >> 20) {
            guard block.withUnsafeBytes({ write(file, $0.baseAddress, $0.count) }) == block.count else {
                throw SpawnFailure(description: "cannot write \(largeFile)")
            }
        }
    }

    /// The standard output of a shell command.
    func output(_ command: String) throws -> String {
        guard let stream = popen(command, "r") else { throw SpawnFailure(description: "popen failed") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, stream)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        pclose(stream)
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func freeBytes(at path: String) -> Int64 {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return 0 }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}

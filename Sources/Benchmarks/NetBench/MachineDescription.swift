// MachineDescription: the date, command, machine and load that go above the published table (benchmark
// layer). Figures from a shared 2-core machine mean little without the load average beside them.

import Foundation
import Glibc

enum MachineDescription {
    /// The 1-minute load average: the machine is shared, and a busy one slows every contender.
    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) > 0 else { return "?" }
        return format(loads[0])
    }

    /// Date, command and machine, for the published table.
    static func text(bench: BenchEnvironment, quick isQuick: Bool, rounds: Int) -> String {
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown"
        let curlVersion = (try? bench.output("/usr/bin/curl --version | head -1 | cut -d' ' -f1-2")) ?? "curl"
        let nginxVersion = (try? bench.output("nginx -v 2>&1 | cut -d/ -f2")) ?? "?"
        let wrkVersion =
            (try? bench.output("command -v wrk >/dev/null && wrk -v 2>&1 | head -1 | cut -d' ' -f1-2"))
            .flatMap { $0.isEmpty ? nil : $0 + ", " } ?? ""
        let date = ISO8601DateFormatter().string(from: Date())
        let mode = isQuick ? "BENCH_QUICK=1 make bench" : "make bench (BENCH_ROUNDS=\(rounds))"
        return """
            date: \(date); command: \(mode)
            machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs (nproc), kernel \(release), CPU \(model)
            peers: \(curlVersion), \(wrkVersion)nginx \(nginxVersion) (1 worker; sendfile for the large files, \
            /fast/ for the 512 B one) and BenchServer (chunked bodies, upload sink) on 127.0.0.1, files on tmpfs

            """
    }
}

// ResultTable: turns the rounds' timings into the published table (benchmark layer): per contender the
// median figure, its ratio to curl, its peak RSS (the largest over rounds), and per row the verdict on the
// issue's target. Markdown, so docs/benchmarks.md can take it as printed.
//
// The ratio is paired: in each round a contender runs right next to curl, so the round's ratio (curl's time
// over the contender's) sees the same load on the shared machine; the table gives the median of those
// per-round ratios. A ratio of medians would mix a quiet round of one program with a busy round of the
// other — on this 2-core machine, shared with other builds, curl's own figure varied 3× between rounds.

/// The medians, ratios and verdicts of a benchmark run, as Markdown.
struct ResultTable {
    var workloads: [Workload]
    /// results[row][contender]: one run per round.
    var results: [[[ChildRun]]]
    var rounds: Int

    func render() -> String {
        var lines = [
            "| workload | program | median | × curl (paired) | peak RSS | target | verdict |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
        ]
        var verdicts: [String] = []
        for (row, workload) in workloads.enumerated() {
            if let reason = workload.unavailable {
                lines.append("| \(workload.title) | — | — | — | — | \(workload.targetLabel) | not run: \(reason) |")
                verdicts.append("- \(workload.title) (\(workload.issue)): NOT RUN — \(reason)")
                continue
            }
            let baselineRuns =
                workload.contenders.indices.first { workload.contenders[$0].isBaseline }
                .map { results[row][$0] } ?? []
            for (index, contender) in workload.contenders.enumerated() {
                let runs = results[row][index]
                guard let seconds = median(runs) else {
                    lines.append("| \(workload.title) | \(contender.name) | failed | | | | |")
                    continue
                }
                let figure = format(workload.figure(seconds: seconds)) + " " + workload.unitLabel
                let ratio = pairedRatio(baseline: baselineRuns, contender: runs)
                let peakRSS = runs.map(\.peakRSSKiB).max() ?? 0
                let failed = runs.contains { $0.status != 0 }
                var verdict = ""
                if contender.isChecked {
                    verdict = judge(workload, contender: contender, seconds: seconds, ratio: ratio, peakRSSKiB: peakRSS)
                    if failed { verdict = "FAILED (exit status)" }
                    verdicts.append("- \(workload.title) (\(workload.issue)): \(contender.name) \(verdict)")
                }
                lines.append(
                    "| \(workload.title) | \(contender.name) | \(figure) | \(format(ratio))× | "
                        + "\(format(Double(peakRSS) / 1024)) MiB | \(contender.isChecked ? targetLabel(workload, contender) : "") | \(verdict) |"
                )
            }
        }
        return (lines + ["", "Targets:"] + verdicts).joined(separator: "\n") + "\n"
    }

    /// The median over rounds of curl's time divided by the contender's (higher is better, for every unit).
    private func pairedRatio(baseline: [ChildRun], contender: [ChildRun]) -> Double {
        let ratios = zip(baseline, contender).map { $0.seconds / $1.seconds }.sorted()
        return ratios.isEmpty ? 0 : ratios[ratios.count / 2]
    }

    private func targetLabel(_ workload: Workload, _ contender: Contender) -> String {
        var label = workload.targetLabel
        if let limit = contender.peakRSSLimitKiB { label += ", RSS ≤ \(limit / 1024) MiB" }
        return label
    }

    private func judge(_ workload: Workload, contender: Contender, seconds: Double, ratio: Double, peakRSSKiB: Int)
        -> String
    {
        var misses: [String] = []
        switch workload.target {
        case .ratio(let wanted):
            if ratio < wanted { misses.append("ratio \(format(ratio))× < \(wanted)×") }
        case .maxMilliseconds(let limit):
            if seconds * 1000 > limit { misses.append("\(format(seconds * 1000)) ms > \(Int(limit)) ms") }
        case .reference:
            break
        }
        if let limit = contender.peakRSSLimitKiB, peakRSSKiB > limit {
            misses.append("peak RSS \(format(Double(peakRSSKiB) / 1024)) MiB > \(limit / 1024) MiB")
        }
        return misses.isEmpty ? "met" : "MISSED: " + misses.joined(separator: "; ")
    }

    /// The median run time in seconds, nil when no round succeeded.
    private func median(_ runs: [ChildRun]) -> Double? {
        let seconds = runs.map(\.seconds).sorted()
        return seconds.isEmpty ? nil : seconds[seconds.count / 2]
    }
}

/// A figure with sensible precision: 1234, 12.3, 1.23.
func format(_ value: Double) -> String {
    if value >= 100 { return String(Int(value.rounded())) }
    let digits = value >= 10 ? 10.0 : 100.0
    return String((value * digits).rounded() / digits)
}

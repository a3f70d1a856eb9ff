// DemoCommand: `wire demo`, the guided tour that `make demo` runs (edge layer). It starts the embedded
// FixtureServer on a free loopback port and walks through every scenario of the utilities HTTPWire
// replaces (DemoTour), printing the request and response heads as they cross the wire. Every scenario
// checks its outcome; the command exits 0 only if all of them did what they say, 1 otherwise.

import HTTPWire

/// Runs `wire demo`.
enum DemoCommand {
    static func run(_ command: ParsedCommand) async throws {
        let tour = try await DemoTour.start()
        let failed = await tour.run()
        await tour.finish()
        if !failed.isEmpty { throw DemoFailure(failed: failed, total: tour.scenarioCount) }
    }
}

/// Some scenarios of the tour did not do what they say (exit 1).
struct DemoFailure: Error, CustomStringConvertible {
    var failed: [String]
    var total: Int
    var description: String {
        "demo: \(failed.count) of \(total) scenarios failed: " + failed.joined(separator: ", ")
    }
}

/// A claim of a scenario that turned out false.
struct DemoCheckFailed: Error, CustomStringConvertible {
    var claim: String
    var description: String { "not true: \(claim)" }
}

// DocSamplesTests: the README and DocC code samples compile against this checkout.
// Runs docs/check-samples.sh, which builds every ```swift block as part of a throwaway package under
// .build/doc-samples; this test only starts it and reports what it printed. It must not edit the samples.

import Foundation
import Testing

@Suite struct DocSamplesTests {
    /// The package root: this file is Tests/HTTPWireTests/DocSamplesTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every Swift sample in README.md and the DocC catalogs compiles", .timeLimit(.minutes(5)))
    func samplesCompile() throws {
        let script = Self.packageRoot.appendingPathComponent("docs/check-samples.sh")
        try #require(FileManager.default.fileExists(atPath: script.path), "missing \(script.path)")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path]
        process.currentDirectoryURL = Self.packageRoot
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Read before waiting: a full pipe would otherwise block the script and the wait forever.
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 0, "docs/check-samples.sh failed:\n\(printed)")
        #expect(printed.contains("samples compile"), "unexpected output:\n\(printed)")
    }
}

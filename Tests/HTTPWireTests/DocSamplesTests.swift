// DocSamplesTests: the README and DocC code samples compile against this checkout.
// Runs docs/check-samples.sh, which builds every ```swift block as part of a throwaway package under
// .build/doc-samples; this test only starts it and reports what it printed. It must not edit the samples.
// The build takes minutes on a fresh clone: it is waited for through Subprocess, off the cooperative pool,
// so the tests running beside it keep their threads.

import Foundation
import TestSupport
import Testing

@Suite struct DocSamplesTests {
    /// The package root: this file is Tests/HTTPWireTests/DocSamplesTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every Swift sample in README.md and the DocC catalogs compiles", .timeLimit(.scaledMinutes(10)))
    func samplesCompile() async throws {
        let script = Self.packageRoot.appendingPathComponent("docs/check-samples.sh")
        try #require(FileManager.default.fileExists(atPath: script.path), "missing \(script.path)")
        let result = try await Subprocess.run(
            "/bin/bash", [script.path], directory: Self.packageRoot.path, mergesErrorIntoOutput: true)
        let printed = result.outputText
        #expect(result.status == 0, "docs/check-samples.sh failed:\n\(printed)")
        #expect(printed.contains("samples compile"), "unexpected output:\n\(printed)")
    }
}

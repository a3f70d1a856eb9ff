// TestCertificates: the throwaway CA and certificates of Fixtures/tls/make-certs.sh, made once per test
// process for every suite that needs one (test support, shared by HTTPWireTests and WireCLITests).
//
// The script makes eight 2048-bit RSA keys: a few seconds on an idle machine, and measured at 12-19 s while
// other builds kept both cores busy. It runs once, started by the first test that asks and awaited by
// every other one through a Task, off the cooperative pool (Subprocess); the directory is shared by both
// test targets, which run in one process. This file knows file names, not TLS: the HTTPWire tests build
// their TLS contexts from these paths.

import Foundation
import Testing

/// Paths of the generated certificates and keys: ca.pem, leaf.pem / leaf.key, wrong-host, expired,
/// self-signed, unknown-ca-leaf, client (see make-certs.sh).
///
/// ```swift
/// let chain = try await TestCertificates.path("leaf.pem")
/// ```
public enum TestCertificates {
    /// The one run of make-certs.sh into a fresh temporary directory.
    private static let making = Task<String?, Never> {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/tls/make-certs.sh").path
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpwire-tls-\(getpid())-\(UUID().uuidString)").path
        guard let result = try? await Subprocess.run("/bin/sh", [script, output]), result.status == 0 else {
            return nil
        }
        return output
    }

    /// The directory holding the files, or nil if make-certs.sh failed.
    public static var directory: String? {
        get async { await making.value }
    }

    /// Path of `name` (e.g. "leaf.pem") in the generated directory; fails the test when the script failed.
    public static func path(_ name: String) async throws -> String {
        let directory = try #require(await directory, "Fixtures/tls/make-certs.sh failed")
        return directory + "/" + name
    }
}

// ThrowawayCertificates: a test CA and a certificate for 127.0.0.1 and localhost, made on the fly for
// `wire serve --tls` and `wire demo` (edge layer). It runs the repository's Fixtures/tls/make-certs.sh
// (the openssl command-line tool) into a fresh temporary directory, found through the source path this
// binary was built from: `--tls` therefore works for a wire built from a checkout that is still present,
// which is what a test server is for. Shipping a CA inside a released binary would be worse: everyone
// would hold its private key.

#if canImport(Glibc)
    import Glibc
#endif

/// Makes throwaway TLS material with make-certs.sh.
enum ThrowawayCertificates {
    /// The script, located from this source file: Sources/wire/ → the repository root.
    static var scriptPath: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fixtures/tls/make-certs.sh"
    }

    /// Runs make-certs.sh into a new temporary directory and returns its path (ca.pem, leaf.pem, leaf.key).
    static func make() throws(UsageError) -> String {
        guard access(scriptPath, R_OK) == 0 else {
            throw UsageError(
                message: "--tls needs \(scriptPath) (run wire from the HTTPWire checkout it was built in)",
                suggestsHelp: false)
        }
        var template = Array("/tmp/wire-tls-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw UsageError(message: "cannot make a temporary directory for certificates", suggestsHelp: false)
        }
        let directory = String(cString: made)
        let status = ChildProcess.start(["/bin/sh", scriptPath, directory])?.wait() ?? -1
        guard status == 0 else {
            throw UsageError(
                message: "make-certs.sh failed (exit \(status)); is openssl installed?", suggestsHelp: false)
        }
        return directory
    }
}

// wire: the curl-like command-line client of HTTPWire (edge layer).
// Until the CLI issue lands it only knows --version and prints its usage.

#if canImport(Glibc)
    import Glibc
#endif

let usage = """
    usage: wire <command> [options] URL...
    commands: get, head, post, put, delete, upload, download, serve, demo (in progress)
    """

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--version" {
    print("wire 0.1.0 (HTTPWire)")
    exit(0)
}
FileHandleless.writeError(usage)
exit(2)

/// Writes to standard error without Foundation.
enum FileHandleless {
    static func writeError(_ text: String) {
        let line = text + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}

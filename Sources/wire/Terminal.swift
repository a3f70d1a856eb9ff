// Terminal: wire's way to standard output and standard error, and what it asks about a terminal
// (edge layer). Plain write(2), isatty(3) and ioctl(2) from Glibc — the CLI does not import Foundation,
// so it keeps the library's small start-up footprint. This file knows nothing about HTTP or progress.

#if canImport(Glibc)
    import Glibc
#endif

/// Writes text to the process's standard streams and answers questions about the terminal behind a descriptor.
enum Terminal {
    /// The width used when a descriptor is not a terminal or the terminal does not report its size.
    static let fallbackColumns = 80

    /// Writes `text` to standard output. Returns false if the write failed (for example a closed pipe).
    @discardableResult
    static func writeOutput(_ text: String) -> Bool { write(text, to: STDOUT_FILENO) }

    /// Writes `text` to standard error. Returns false if the write failed.
    @discardableResult
    static func writeError(_ text: String) -> Bool { write(text, to: STDERR_FILENO) }

    /// Writes all of `text` to `fd`, continuing after short writes and interrupted calls (EINTR).
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> Bool {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Whether `fd` is a terminal: what decides if a progress bar is shown by default.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The terminal's width in columns, from the TIOCGWINSZ ioctl; `fallbackColumns` when `fd` is not a
    /// terminal or reports a width of 0 (as a pseudo-terminal does before anyone sets its size).
    static func columns(of fd: Int32) -> Int {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return fallbackColumns }
        return Int(size.ws_col)
    }
}

// TerminalTests: Terminal's terminal questions against a real pseudo-terminal and a pipe in this process,
// and the harness that runs the wire binary under a pseudo-terminal (util-linux `script`).

import TestSupport
import Testing

@testable import wire

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct TerminalTests {
    /// Opens a pseudo-terminal pair with the given width; returns (controller, terminal) descriptors.
    private func openPseudoTerminal(columns: UInt16) throws -> (Int32, Int32) {
        var controller: Int32 = -1
        var terminal: Int32 = -1
        try #require(openpty(&controller, &terminal, nil, nil, nil) == 0)
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        try #require(ioctl(controller, UInt(TIOCSWINSZ), &size) == 0)
        return (controller, terminal)
    }

    @Test("a pseudo-terminal is a terminal and reports its width")
    func pseudoTerminal() throws {
        let (controller, terminal) = try openPseudoTerminal(columns: 57)
        defer {
            close(terminal)
            close(controller)
        }
        #expect(Terminal.isTerminal(terminal))
        #expect(Terminal.columns(of: terminal) == 57)
    }

    @Test("a terminal that reports width 0 falls back to 80 columns")
    func zeroWidth() throws {
        let (controller, terminal) = try openPseudoTerminal(columns: 0)
        defer {
            close(terminal)
            close(controller)
        }
        #expect(Terminal.columns(of: terminal) == Terminal.fallbackColumns)
        #expect(Terminal.fallbackColumns == 80)
    }

    @Test("a pipe is not a terminal, so no bar is drawn by default, and its width is the fallback")
    func pipe() throws {
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        #expect(!Terminal.isTerminal(ends[1]))
        #expect(!ProgressBar.isShown(requested: nil, stderrIsTerminal: Terminal.isTerminal(ends[1])))
        #expect(Terminal.columns(of: ends[1]) == 80)
    }

    @Test("write delivers every byte of a long text through a pipe")
    func writeAll() throws {
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        defer { close(ends[0]) }
        let text = String(repeating: "0123456789abcdef", count: 2048)
        #expect(Terminal.write(text, to: ends[1]))
        close(ends[1])
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = read(ends[0], &chunk, chunk.count), count > 0 { received += chunk[..<count] }
        #expect(received == Array(text.utf8))
    }

    @Test("the pseudo-terminal harness gives wire a terminal on stdout and stderr", .timeLimit(.scaledMinutes(1)))
    func harness() async throws {
        // A terminal turns "\n" into "\r\n" (ONLCR); a pipe passes it through. That difference proves
        // which one wire wrote to, on stdout (--version) and on stderr (a usage error).
        let version = try await WireProcess.underPseudoTerminal(["--version"])
        #expect(version.status == 0)
        #expect(version.standardOutput == Help.versionLine + "\r\n")
        let piped = try await WireProcess.run(["--version"])
        #expect(piped.standardOutput == Help.versionLine + "\n")

        let mistake = try await WireProcess.underPseudoTerminal(["frob"], columns: 57)
        #expect(mistake.status == 2)
        #expect(
            mistake.standardOutput
                == "wire: error: unknown command \"frob\"\r\nwire: try 'wire --help' for more information\r\n")
    }
}

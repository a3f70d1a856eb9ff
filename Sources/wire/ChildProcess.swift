// ChildProcess: starts another program (or wire itself) with posix_spawn(3), signals it and waits for it
// (edge layer). `wire demo` uses it to kill a real `wire download` with SIGKILL — a process dying, not a
// task being cancelled — and `wire serve --tls` to run make-certs.sh. Its output goes to /dev/null.

#if canImport(Glibc)
    import Glibc
#endif

/// A started child process.
struct ChildProcess {
    /// The child's process id.
    let pid: pid_t

    /// The path that runs this very binary again (Linux): how the demo starts a second wire.
    static let currentExecutable = "/proc/self/exe"

    /// Starts `arguments[0]` (a path) with `arguments`, stdout and stderr to /dev/null. Nil if it cannot start.
    static func start(_ arguments: [String]) -> ChildProcess? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, &pointers, environ) == 0 else { return nil }
        return ChildProcess(pid: pid)
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that killed it (as a shell says).
    /// Blocks the calling thread; children here end within moments of being told to.
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros: low 7 bits the signal, the next 8 the exit status.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

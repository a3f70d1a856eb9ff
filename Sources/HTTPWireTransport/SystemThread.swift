// SystemThread: starts a dedicated, named operating-system thread (transport layer).
//
// The reactor and the blocking worker must not run on Swift's cooperative pool: the reactor sleeps in
// `epoll_wait` and the worker in `getaddrinfo` or a disk read, and either would starve the few pool threads
// (one per core). They get their own pthreads, started here and never joined: they live as long as the
// process. This file knows nothing about what the threads do.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Starts detached pthreads for HTTPWire's long-lived loops.
package enum SystemThread {
    /// Carries the closure through pthread_create's `void *` argument.
    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a detached thread named `name` (at most 15 bytes show in `ps`/`top`) that runs `body`.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                _ = pthread_setname_np(pthread_self(), String(start.name.utf8.prefix(15)) ?? "httpwire")
                start.body()
                return nil
            }, start)
        // Without its threads HTTPWire cannot do any I/O; running out of threads at start-up is not a
        // condition a caller could handle.
        precondition(result == 0, "pthread_create for \(name) failed with \(result)")
        pthread_detach(thread)
    }
}

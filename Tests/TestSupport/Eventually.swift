// eventually: waiting for a condition with a deadline, the one way a test waits for something to happen
// (test support, shared by HTTPWireTests and WireCLITests).
//
// A test that needs another task, thread or process to reach a state polls for that state, every 5 ms, until
// a deadline — never a fixed sleep that hopes the state has been reached by then. The deadline is scaled by
// `TestTime.scale`. The result is a Bool so that a precondition reads `try #require(await eventually { … })`
// and the test stops at the first broken step. The poll sleeps on the cooperative pool's timer; nothing here
// blocks a thread.

/// Waits until `condition` holds, checking every 5 ms for at most `timeout` times ``TestTime/scale``; returns
/// whether it held.
///
/// ```swift
/// try #require(await eventually { server.requestsServed == 1 })
/// ```
public func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + timeout.scaled
    while clock.now < end {
        if condition() { return true }
        // A cancelled test (its time limit passed) must not spin here until the deadline.
        guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { break }
    }
    return condition()
}

/// ``eventually(within:_:)-(_,()->Bool)`` for a condition that has to await (a file read off the pool, an
/// actor's state).
public func eventually(within timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + timeout.scaled
    while clock.now < end {
        if await condition() { return true }
        guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { break }
    }
    return await condition()
}

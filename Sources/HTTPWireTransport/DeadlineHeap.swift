// DeadlineHeap: the reactor's pending deadlines, earliest first (transport layer).
//
// A binary min-heap of waiting operations ordered by deadline, so the reactor knows how long `epoll_wait`
// may sleep and which operations have expired. Finished operations are not removed eagerly (that would
// need a search); they are skipped when they reach the top, and the heap is compacted when stale entries
// pile up, for example during a long download whose every read carried a deadline. Owned by the reactor
// thread; no system calls, no clock reads.

/// Waiting operations ordered by deadline (reactor thread only).
struct DeadlineHeap {
    private var entries: [AnyReactorOperation] = []
    /// Size at which stale entries are swept out; grows with the number of live entries.
    private var compactionThreshold = 1024

    /// Adds an operation that has a deadline.
    mutating func push(_ operation: AnyReactorOperation) {
        if entries.count >= compactionThreshold {
            entries.removeAll { !$0.isPending }
            rebuild()
            compactionThreshold = max(1024, entries.count * 2)
        }
        entries.append(operation)
        siftUp(entries.count - 1)
    }

    /// The earliest deadline of an operation still pending (dropping finished ones from the top).
    mutating func earliest() -> Deadline? {
        while let first = entries.first {
            if first.isPending { return first.deadline }
            removeFirst()
        }
        return nil
    }

    /// Removes and returns the next pending operation whose deadline is at or before `now`.
    mutating func popExpired(now: UInt64) -> AnyReactorOperation? {
        while let first = entries.first {
            if !first.isPending {
                removeFirst()
                continue
            }
            guard first.deadline.uptimeNanoseconds <= now else { return nil }
            removeFirst()
            return first
        }
        return nil
    }

    private mutating func removeFirst() {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return }
        entries[0] = last
        siftDown(0)
    }

    private mutating func rebuild() {
        var index = entries.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            var smallest = left
            if right < entries.count && entries[right].deadline < entries[left].deadline { smallest = right }
            guard entries[smallest].deadline < entries[parent].deadline else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

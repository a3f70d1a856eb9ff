// Transport tests without I/O: deadline arithmetic on the monotonic clock, and the reactor's deadline heap
// (earliest first, finished operations skipped).

import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct Deadlines {
        @Test("deadlines count from now on the monotonic clock")
        func arithmetic() {
            let now = Deadline.nowNanoseconds()
            // Ten minutes: no load can make it pass before `hasPassed` is asked below.
            let soon = Deadline.after(.seconds(600))
            #expect(soon.uptimeNanoseconds >= now + 600_000_000_000)
            #expect(soon.millisecondsRemaining(now: soon.uptimeNanoseconds - 1_000_001) == 2)  // rounds up
            #expect(soon.millisecondsRemaining(now: soon.uptimeNanoseconds) == 0)
            #expect(!soon.hasPassed)
            #expect(Deadline.after(.seconds(-1)).hasPassed)
            #expect(Deadline.never.millisecondsRemaining() == -1)
            #expect(Deadline.after(.seconds(Int64.max)).isNever)
            #expect(soon.nanosecondsRemaining(now: soon.uptimeNanoseconds - 5) == 5)
            #expect(soon.nanosecondsRemaining(now: soon.uptimeNanoseconds + 5) == 0)
        }

        @Test("the heap yields expired operations earliest first and skips finished ones")
        func heapOrder() {
            var heap = DeadlineHeap()
            let instants: [UInt64] = [50, 10, 40, 20, 30, 60]
            let operations = instants.map { instant in
                ReactorOperation<Int>(
                    descriptor: nil, deadline: Deadline(uptimeNanoseconds: instant),
                    body: { .finished(0) })
            }
            for operation in operations { heap.push(operation) }
            operations[3].state = .finished  // the one due at 20 completed in time
            #expect(heap.earliest()?.uptimeNanoseconds == 10)
            var expired: [UInt64] = []
            while let operation = heap.popExpired(now: 45) { expired.append(operation.deadline.uptimeNanoseconds) }
            #expect(expired == [10, 30, 40])
            #expect(heap.earliest()?.uptimeNanoseconds == 50)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import ImageCore

/// Results a job leaves for the caller, read after `wait()`.
private final class Tally: @unchecked Sendable {
    var values: [Int] = []
}

@Suite("HandoffWorker")
struct HandoffWorkerTests {
    @Test("jobs run in order on another thread, each seen whole after wait()")
    func jobsInOrder() throws {
        let worker = try #require(HandoffWorker())
        defer { worker.close() }
        let tally = Tally()
        for i in 0 ..< 2000 {
            worker.submit {
                // Long enough now and then that the caller sleeps rather than polls.
                if i % 500 == 0 {
                    var spin = 0
                    for k in 0 ..< 2_000_000 { spin &+= k }
                    tally.values.append(spin == 0 ? -1 : i)
                } else {
                    tally.values.append(i)
                }
            }
            worker.wait()
            #expect(tally.values.count == i + 1)
            #expect(tally.values.last == i)
        }
        #expect(tally.values == Array(0 ..< 2000))
    }

    @Test("the caller works while a job runs, and wait() returns at once with nothing pending")
    func overlap() throws {
        let worker = try #require(HandoffWorker())
        let tally = Tally()
        worker.wait()
        var here = 0
        for i in 0 ..< 100 {
            worker.submit { tally.values.append(i * 2) }
            here += i
            worker.wait()
        }
        worker.close()
        worker.close()
        #expect(here == 4950)
        #expect(tally.values == (0 ..< 100).map { $0 * 2 })
    }

    @Test("a worker that sleeps for work wakes for the next job")
    func wakesFromSleep() throws {
        let worker = try #require(HandoffWorker())
        defer { worker.close() }
        let tally = Tally()
        for i in 0 ..< 3 {
            // Longer than the longest poll, so the worker is asleep when the job comes.
            var start = timespec(), now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            repeat {
                clock_gettime(CLOCK_MONOTONIC, &now)
            } while (now.tv_sec - start.tv_sec) * 1_000_000_000 + (now.tv_nsec - start.tv_nsec) < 3 * HandoffWorker.maximumPollTime
            worker.submit { tally.values.append(i) }
            worker.wait()
        }
        #expect(tally.values == [0, 1, 2])
    }
}

@Suite("HandoffWorker's adaptive poll")
struct HandoffPollTests {
    @Test("a sleep lengthens the poll to twice the wait, up to the maximum; a wait over 2 ms halves it, down to the minimum")
    func adapts() {
        let minimum = HandoffWorker.pollTime, maximum = HandoffWorker.maximumPollTime
        // Slept: twice the wait next time, never past the maximum.
        #expect(HandoffWorker.nextPoll(minimum, waited: minimum + minimum / 2) == 3 * minimum)
        #expect(HandoffWorker.nextPoll(minimum, waited: 300_000) == 600_000)
        #expect(HandoffWorker.nextPoll(maximum, waited: maximum + 1) == maximum)
        #expect(HandoffWorker.nextPoll(minimum, waited: 1_500_000) == maximum)
        // Over 2 ms (the other side lost its processor): half, never under the minimum.
        #expect(HandoffWorker.nextPoll(maximum, waited: 5_000_000) == maximum / 2)
        #expect(HandoffWorker.nextPoll(minimum, waited: 5_000_000) == minimum)
        var poll = minimum
        for _ in 0 ..< 10 { poll = HandoffWorker.nextPoll(poll, waited: poll + 1) }
        #expect(poll == maximum)
    }
}

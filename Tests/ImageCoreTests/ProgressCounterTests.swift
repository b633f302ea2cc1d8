import Testing
@testable import ImageCore

/// A ring of slots written by one thread and read by the other, ordered by two counters. The
/// slots are raw memory, as the decoders' rings are: a Swift array written on one thread while
/// another reads a different element is still one variable accessed from two threads (an
/// access race, whatever the elements).
private final class Ring: @unchecked Sendable {
    let slots = UnsafeMutablePointer<Int>.allocate(capacity: 4)
    init() { slots.initialize(repeating: -1, count: 4) }
    deinit { slots.deallocate() }
}

@Suite("ProgressCounter")
struct ProgressCounterTests {
    @Test("a producer runs ahead by the ring's size and no further; the consumer sees every slot written")
    func ring() throws {
        let worker = try #require(HandoffWorker())
        defer { worker.close() }
        let ring = Ring()
        let count = 5000
        let produced = ProgressCounter(0), consumed = ProgressCounter(0)
        worker.submit {
            for i in 0 ..< count {
                // Slot i % 4 held item i - 4, which must have been read.
                if i >= 4 { _ = consumed.wait(for: i - 3) }
                // Now and then long enough that the consumer sleeps rather than polls.
                if i % 1000 == 999 {
                    var spin = 0
                    for k in 0 ..< 2_000_000 { spin &+= k }
                    ring.slots[i % 4] = spin == 0 ? -2 : i
                } else {
                    ring.slots[i % 4] = i
                }
                produced.raise(to: i + 1)
            }
            produced.end()
        }
        var next = 0
        var read: [Int] = []
        while true {
            let ready = produced.wait(for: next + 1)
            guard ready > next else { break }
            #expect(ready - next <= 4)
            while next < ready {
                read.append(ring.slots[next % 4])
                next += 1
                consumed.raise(to: next)
            }
        }
        worker.wait()
        #expect(read == Array(0 ..< count))
        #expect(produced.count == count)
    }

    @Test("a wait returns at once when the count is there or final, with the count")
    func endAndReached() {
        let counter = ProgressCounter(3)
        #expect(counter.wait(for: 2) == 3)
        #expect(counter.wait(for: 3) == 3)
        counter.raise(to: 5)
        #expect(counter.wait(for: 5) == 5)
        counter.end()
        #expect(counter.wait(for: 9) == 5)
    }

    @Test("a producer that stops early ends the count; the consumer gets what came")
    func earlyEnd() throws {
        let worker = try #require(HandoffWorker())
        defer { worker.close() }
        let produced = ProgressCounter(10)
        worker.submit {
            for i in 11 ... 17 { produced.raise(to: i) }
            produced.end()
        }
        var seen = 10
        while true {
            let ready = produced.wait(for: seen + 1)
            guard ready > seen else { break }
            seen = ready
        }
        worker.wait()
        #expect(seen == 17)
    }
}

import NIOCore
import Testing

@testable import HeraldDelivery

@Suite struct StreamDeadlinesTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func theTimerMovesOnlyEarlier() {
        var deadlines = StreamDeadlines<Int>()
        #expect(deadlines.add(1, deadline: self.start + .seconds(5)) == self.start + .seconds(5))
        #expect(deadlines.add(3, deadline: self.start + .seconds(9)) == nil, "a later deadline keeps the timer")
        #expect(deadlines.add(5, deadline: self.start + .seconds(2)) == self.start + .seconds(2))
        #expect(deadlines.timer == self.start + .seconds(2))
    }

    @Test func firingReturnsTheOpenStreamsPastTheirDeadlineAndTheEarliestLeft() {
        var deadlines = StreamDeadlines<Int>()
        _ = deadlines.add(1, deadline: self.start + .seconds(1))
        _ = deadlines.add(3, deadline: self.start + .seconds(9))
        _ = deadlines.add(5, deadline: self.start + .seconds(1))
        _ = deadlines.add(7, deadline: self.start + .seconds(4))
        let open: Set = [1, 3, 7]
        let fired = deadlines.timerFired(now: self.start + .seconds(1)) { open.contains($0) }
        #expect(fired.expired == [1], "stream 5 was answered")
        #expect(fired.next == self.start + .seconds(4))
        #expect(deadlines.timer == self.start + .seconds(4))
        let later = deadlines.timerFired(now: self.start + .seconds(10)) { open.contains($0) }
        #expect(later.expired == [3, 7])
        #expect(later.next == nil && deadlines.timer == nil)
    }

    @Test func answeredStreamsLeaveFromTheFrontOnly() {
        var deadlines = StreamDeadlines<Int>()
        for id in [1, 3, 5] { _ = deadlines.add(id, deadline: self.start + .seconds(Int64(id))) }
        deadlines.dropAnswered { $0 == 3 }
        // 1 left from the front; 5, answered behind the open 3, stays until 3 is answered, and
        // firing skips it.
        let fired = deadlines.timerFired(now: self.start + .seconds(60)) { $0 == 3 }
        #expect(fired.expired == [3])
    }
}

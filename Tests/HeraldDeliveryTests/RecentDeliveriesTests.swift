import Foundation
import HeraldCore
import HeraldDelivery
import Synchronization
import Testing

/// The status page's minutes: counts by outcome a minute, per app and provider, and the last
/// push that did not deliver.
@Suite struct RecentDeliveriesTests {
    /// A wall clock the test moves.
    final class Wall: Sendable {
        let seconds = Mutex<TimeInterval>(1_800_000_000)
        var now: Date { Date(timeIntervalSince1970: self.seconds.withLock { $0 }) }
        func advance(_ by: TimeInterval) { self.seconds.withLock { $0 += by } }
    }

    @Test func outcomesCountInTheirMinute() {
        let wall = Wall()
        let recent = RecentDeliveries(now: { wall.now })
        recent.record(app: "a", provider: "apns", outcome: .delivered)
        recent.record(app: "a", provider: "apns", outcome: .delivered)
        recent.record(app: "a", provider: "apns", outcome: .deadToken(reason: "Unregistered"))
        wall.advance(60)
        recent.record(app: "a", provider: "apns", outcome: .rejected(reason: "BadTopic"))
        recent.recordNotAdmitted(app: "a", provider: "apns")
        recent.record(app: "b", provider: "fcm", outcome: .failed(reason: "UNAVAILABLE"))
        let snapshot = recent.snapshot()
        #expect(snapshot.map { "\($0.app)/\($0.provider)" } == ["a/apns", "b/fcm"])
        let minutes = snapshot[0].minutes
        #expect(minutes.count == RecentDeliveries.minutes)
        #expect(minutes.last?.counts.rejected == 1)
        #expect(minutes.last?.counts.notAdmitted == 1)
        #expect(minutes[minutes.count - 2].counts.delivered == 2)
        #expect(minutes[minutes.count - 2].counts.deadToken == 1)
        #expect(minutes.dropLast(2).allSatisfy { $0.counts.total == 0 })
        #expect(snapshot[0].lastFailure?.result == "not_admitted")
        #expect(snapshot[1].lastFailure?.result == "failed")
        #expect(snapshot[1].lastFailure?.reason.contains("UNAVAILABLE") == true)
        #expect(zip(minutes, minutes.dropFirst()).allSatisfy { $1.start.timeIntervalSince($0.start) == 60 })
    }

    @Test func minutesOlderThanTheWindowAreForgotten() {
        let wall = Wall()
        let recent = RecentDeliveries(now: { wall.now })
        recent.record(app: "a", provider: "apns", outcome: .delivered)
        wall.advance(TimeInterval(60 * RecentDeliveries.minutes))
        // Same slot of the ring, fifteen minutes on: the old count must not show as new.
        recent.record(app: "a", provider: "apns", outcome: .delivered)
        let minutes = recent.snapshot()[0].minutes
        #expect(minutes.map(\.counts.delivered).reduce(0, +) == 1)
        wall.advance(60)
        #expect(recent.snapshot()[0].minutes.map(\.counts.delivered) == Array(repeating: 0, count: RecentDeliveries.minutes - 2) + [1, 0])
    }
}

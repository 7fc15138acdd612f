import CoreMetrics
import HeraldCore
import HeraldStore
import HeraldTesting
import Logging
import Synchronization
import Testing

@testable import HeraldCluster

/// The log's window as a policy: a trim point below every live member by the retention's count,
/// and never younger than its duration, by the trimmer's own watch of the head on a test clock.
@Suite struct LogRetentionTests {
    @Test func theTrimPointIsBelowTheSlowestMemberAndTheHeadOfDurationAgo() {
        let retention = LogRetention(revisions: 100, duration: .seconds(60))
        #expect(retention.trimPoint(applied: [1_000, 5_000, 800], headDurationAgo: 10_000) == 700)
        #expect(retention.trimPoint(applied: [1_000, 5_000], headDurationAgo: 400) == 400, "the duration keeps more")
        #expect(retention.trimPoint(applied: [50], headDurationAgo: 10_000) == 0, "fewer than the count applied: nothing goes")
        #expect(retention.trimPoint(applied: [1_000], headDurationAgo: nil) == 0, "not watched for the duration yet: nothing goes")
        #expect(retention.trimPoint(applied: [LogPosition](), headDurationAgo: 10_000) == 0)
    }

    @Test func theHeadHistoryAnswersTheNewestHeadOldEnough() {
        var history = LogRetention.HeadHistory<TestClock.Instant>()
        let start = TestClock.Instant(offset: .zero)
        for second in 0..<10 { history.record(head: LogPosition(100 * second), at: start + .seconds(second)) }
        let now = start + .seconds(10)
        #expect(history.head(atLeast: .seconds(3), before: now) == 700)
        #expect(history.head(atLeast: .seconds(3), before: now) == 700, "asking again drops nothing it still needs")
        #expect(history.head(atLeast: .seconds(30), before: now) == nil)
        history.reset()
        #expect(history.head(atLeast: .zero, before: now) == nil)
    }
}

/// `LogWindowKeeper`'s turns against a backend in memory and a membership whose lease the test
/// holds: it publishes, trims only while it holds the role, and only what the policy allows.
@Suite struct LogWindowKeeperTests {
    final class MemoryWindow: LogWindowBackend {
        struct State {
            var applied: [String: LogPosition] = [:]
            var trimmer: String?
            var trimPoint: LogPosition = 0
            var entries: [LogPosition] = Array(1...1_000)
            var compactedThrough: LogPosition = 0
        }

        let state = Mutex(State())

        func publishApplied(_ position: LogPosition, member: String, lease: MemberLease) async throws {
            self.state.withLock { $0.applied[member] = position }
        }

        func appliedPositions() async throws -> [String: LogPosition] { self.state.withLock { $0.applied } }

        func claimTrimmer(member: String, lease: MemberLease) async throws -> Bool {
            self.state.withLock { state in
                if state.trimmer == nil { state.trimmer = member }
                return state.trimmer == member
            }
        }

        func trimPoint() async throws -> LogPosition { self.state.withLock { $0.trimPoint } }

        func trim(through position: LogPosition, limit: Int) async throws -> Int {
            self.state.withLock { state in
                state.trimPoint = max(state.trimPoint, position)
                let gone = state.entries.prefix { $0 <= position }.prefix(limit)
                state.entries.removeFirst(gone.count)
                return gone.count
            }
        }

        func compact(through position: LogPosition) async throws {
            self.state.withLock { $0.compactedThrough = position }
        }
    }

    /// A log whose head the test sets.
    final class FixedHeadLog: CommandLog {
        let position = Mutex<LogPosition>(1_000)
        func append(_ commands: [RegistryCommand]) async throws -> [LogPosition] { [] }
        func entries(from position: LogPosition, limit: Int) async throws -> [LogEntry] { [] }
        func head() async throws -> LogPosition { self.position.withLock { $0 } }
        func waitForHead(beyond position: LogPosition) async throws -> LogPosition { try await Task.sleep(for: .seconds(3600)); return 0 }
        func source() async throws -> String { "test" }
    }

    @Test func onlyTheTrimmerTrimsAndOnlyPastTheRetention() async throws {
        let members = InMemoryMembership()
        let membership = Membership(configuration: .init(nodeID: "node1", url: "http://127.0.0.1:1"), backend: members, logger: Logger(label: "node1"))
        let running = Task { try await membership.run() }
        defer { running.cancel() }
        try await waitUntil("node1 registers", observing: { membership.snapshot.lease != nil }) { $0 }
        let window = MemoryWindow()
        let log = FixedHeadLog()
        let applied = Mutex<LogPosition>(900)
        let clock = TestClock()
        var configuration = LogWindowKeeper<TestClock>.Configuration(retention: LogRetention(revisions: 100, duration: .seconds(60)))
        configuration.batch = 7
        let keeper = LogWindowKeeper(
            configuration: configuration,
            backend: window,
            log: log,
            membership: membership,
            appliedPosition: { applied.withLock { $0 } },
            clock: clock,
            metrics: LogWindowMetrics(factory: NOOPMetricsHandler.instance),
            logger: Logger(label: "keeper")
        )
        var history = LogRetention.HeadHistory<TestClock.Instant>()
        var published: LogWindowKeeper<TestClock>.Published?
        // Another live member, further behind.
        window.state.withLock { $0.applied["node2"] = 600 }

        // The first turn publishes and takes the role, but has not watched the head for a
        // minute yet: nothing goes.
        #expect(try await keeper.turn(&history, published: &published) == 0)
        #expect(window.state.withLock { $0.applied["node1"] } == 900)
        #expect(window.state.withLock { $0.trimmer } == "node1")

        // An unchanged position is not written again.
        window.state.withLock { $0.applied["node1"] = 1 }
        #expect(try await keeper.turn(&history, published: &published) == 0)
        #expect(window.state.withLock { $0.applied["node1"] } == 1)
        window.state.withLock { $0.applied["node1"] = 900 }

        clock.advance(by: .seconds(61))
        log.position.withLock { $0 = 1_200 }
        // A minute on, the head of a minute ago (1,000) no longer holds it back; node2 at 600
        // less 100 does.
        #expect(try await keeper.turn(&history, published: &published) == 500)
        #expect(window.state.withLock { ($0.trimPoint, $0.entries.first, $0.compactedThrough) } == (500, 501, 500))

        // node2 left (its lease ended and its position with it): node1's own 1,150 less 100,
        // below the head of a minute ago (1,200).
        window.state.withLock { $0.applied["node2"] = nil }
        applied.withLock { $0 = 1_150 }
        clock.advance(by: .seconds(61))
        #expect(try await keeper.turn(&history, published: &published) == 500, "501 through 1,000: every entry left")
        #expect(window.state.withLock { $0.trimPoint } == 1_050)

        // Another member holds the role: this one publishes and deletes nothing.
        window.state.withLock { $0.trimmer = "node2"; $0.entries = Array(1_001...1_100) }
        applied.withLock { $0 = 1_200 }
        clock.advance(by: .seconds(61))
        #expect(try await keeper.turn(&history, published: &published) == 0)
        #expect(window.state.withLock { ($0.applied["node1"], $0.entries.count) } == (1_200, 100))
    }
}

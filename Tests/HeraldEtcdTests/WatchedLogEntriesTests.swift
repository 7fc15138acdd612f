import HeraldCore
@testable import HeraldEtcd
@testable import HeraldStore
import HeraldTesting
import Testing

/// What the etcd watch holds for the follower: whole revisions, only an unbroken stretch, and a
/// bounded amount.
@Suite struct WatchedLogEntriesTests {
    static func entries(_ positions: [LogPosition]) -> [LogEntry] {
        positions.enumerated().map { index, position in
            LogEntry(position: position, command: EtcdCommandLogTests.register(subject: index))
        }
    }

    @Test func readsBeforeTheWatchStartedGoToEtcd() async throws {
        let watched = WatchedLogEntries(capacity: 16)
        #expect(watched.entries(from: 1, limit: 10) == nil)
        watched.restart(at: 50)
        #expect(watched.entries(from: 49, limit: 10) == nil)
        #expect(watched.entries(from: 50, limit: 10) == [])
    }

    @Test func aLimitNeverSplitsARevision() async throws {
        let watched = WatchedLogEntries(capacity: 16)
        watched.restart(at: 10)
        try await watched.deliver(Self.entries([10, 11, 11, 11, 12]), through: 12)
        let first = try #require(watched.entries(from: 10, limit: 2))
        #expect(first.map(\.position) == [10, 11, 11, 11])
        let again = try #require(watched.entries(from: 10, limit: 2))
        #expect(again == first, "what was read stays until the reader asks past it")
        let rest = try #require(watched.entries(from: 12, limit: 2))
        #expect(rest.map(\.position) == [12])
        #expect(watched.resumeRevision == 13)
    }

    @Test func progressReportsMoveTheResumeRevisionButWakeNobody() async throws {
        let watched = WatchedLogEntries(capacity: 16)
        watched.restart(at: 1)
        try await watched.deliver([], through: 40)
        #expect(watched.resumeRevision == 41)
        #expect(watched.newest.position == 0)
        try await watched.deliver(Self.entries([45]), through: 45)
        #expect(watched.newest.position == 45)
    }

    @Test func theWatchWaitsWhileTheReaderIsAFullBufferBehind() async throws {
        let watched = WatchedLogEntries(capacity: 4)
        watched.restart(at: 1)
        try await watched.deliver(Self.entries([1, 2, 3, 4]), through: 4)
        let delivering = Task { try await watched.deliver(Self.entries([5]), through: 5) }
        // The reader reads without moving past anything: the watch must still wait.
        #expect(watched.entries(from: 1, limit: 100)?.count == 4)
        try await waitUntil("the fifth delivery waits for room") { watched.isHoldingBackTheWatch }
        #expect(watched.newest.position == 4)
        // Reading past two entries makes room.
        #expect(watched.entries(from: 3, limit: 100)?.count == 2)
        try await delivering.value
        #expect(watched.newest.position == 5)
        #expect(watched.entries(from: 5, limit: 100)?.map(\.position) == [5])
    }

    @Test func aWaitingWatchStopsWhenCancelled() async throws {
        let watched = WatchedLogEntries(capacity: 1)
        watched.restart(at: 1)
        try await watched.deliver(Self.entries([1]), through: 1)
        let delivering = Task { try await watched.deliver(Self.entries([2]), through: 2) }
        delivering.cancel()
        await #expect(throws: CancellationError.self) { try await delivering.value }
    }
}

import Foundation
import HeraldCore
import HeraldDelivery
import HeraldTesting
import Synchronization
import Testing

/// A journal in memory: `restart()` turns what is recorded into what an earlier process left.
final class MemoryJournal: AcceptedWorkJournal {
    private struct State {
        var entries: [UInt64: AcceptedWork] = [:]
        var nextID: UInt64 = 1
        var firstIDOfThisRun: UInt64 = 1
        var failing = false
    }

    private let state = Mutex(State())

    var entries: [UInt64: AcceptedWork] { self.state.withLock { $0.entries } }

    func failWrites() {
        self.state.withLock { $0.failing = true }
    }

    func restart() {
        self.state.withLock { $0.firstIDOfThisRun = $0.nextID }
    }

    func record(_ entries: [AcceptedWork], completion: @escaping @Sendable ([UInt64]?) -> Void) {
        let ids = self.state.withLock { state -> [UInt64]? in
            guard !state.failing else { return nil }
            return entries.map { entry in
                defer { state.nextID += 1 }
                state.entries[state.nextID] = entry
                return state.nextID
            }
        }
        completion(ids)
    }

    func finished(_ ids: [UInt64]) {
        self.state.withLock { state in
            for id in ids { state.entries[id] = nil }
        }
    }

    func unfinished(owner: String) throws -> [JournaledWork] {
        self.state.withLock { state in
            state.entries.filter { $0.key < state.firstIDOfThisRun && $0.value.owner == owner }.sorted { $0.key < $1.key }.map { JournaledWork(id: $0.key, work: $0.value) }
        }
    }

    func unfinishedOwners() throws -> Set<String> {
        self.state.withLock { state in Set(state.entries.filter { $0.key < state.firstIDOfThisRun }.map(\.value.owner)) }
    }

    func depth() throws -> (entries: Int, oldestAcceptedAt: Int64?) {
        self.state.withLock { state in (state.entries.count, state.entries.min { $0.key < $1.key }?.value.acceptedAt) }
    }
}

/// Collects what a queue delivers.
final class DeliveredPushes: Sendable {
    private let pushes = Mutex<[PushNotification]>([])
    var all: [PushNotification] { self.pushes.withLock { $0 } }

    func add(_ batch: [PushNotification]) {
        self.pushes.withLock { $0 += batch }
    }
}

struct DeliveryQueueTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func push(_ token: String, expiration: Int64? = nil) -> PushNotification {
        var push = PushNotification(id: RandomUUID.lowercased(), device: Device(platform: .apns, token: token), payload: Array(#"{"aps":{}}"#.utf8))
        push.expiration = expiration
        return push
    }

    static func durability(_ journal: MemoryJournal, resumed: @escaping @Sendable (Int, [PushNotification]) -> Void = { _, _ in }) -> DeliveryQueue.Durability {
        DeliveryQueue.Durability(journal: journal, owner: "door", maximumAge: .seconds(3600), now: { Self.now }, resumed: resumed)
    }

    @Test func anAcceptedPushIsJournaledBeforeTheAnswerAndForgottenOnceDelivered() async throws {
        let journal = MemoryJournal()
        let delivered = DeliveredPushes()
        let queue = DeliveryQueue(limit: 10, durability: Self.durability(journal)) { delivered.add($0) }
        let push = Self.push("aa", expiration: 1_800_000_100)
        #expect(await queue.accept([push]))
        let entry = try #require(journal.entries.values.first)
        #expect(entry.owner == "door")
        #expect(entry.item == .push(push))
        // Its own expiration comes before the queue's hour.
        #expect(entry.deadline == 1_800_000_100)
        #expect(entry.acceptedAt == 1_800_000_000_000)
        queue.finish()
        await queue.run()
        #expect(delivered.all == [push])
        #expect(journal.entries.isEmpty)
        #expect(queue.pendingCount == 0)
    }

    @Test func aRestartResumesWhatWasLeftPastTheLimitAndReportsWhatExpired() async throws {
        let journal = MemoryJournal()
        let first = DeliveryQueue(limit: 10, durability: Self.durability(journal)) { _ in }
        let kept = [Self.push("01"), Self.push("02"), Self.push("03")]
        let stale = Self.push("04", expiration: 1_799_999_000)
        for push in kept + [stale] { #expect(await first.accept([push])) }
        // Not delivered: the process "dies" with them queued.
        journal.restart()

        let report = Mutex<(Int, [PushNotification])?>(nil)
        let delivered = DeliveredPushes()
        let later = Date(timeIntervalSince1970: 1_800_000_000)
        var durability = Self.durability(journal) { count, expired in report.withLock { $0 = (count, expired) } }
        durability.now = { later }
        let second = DeliveryQueue(limit: 1, durability: durability) { delivered.add($0) }
        // Accepted in this run: not resumed again, delivered once.
        let fresh = Self.push("05")
        #expect(await second.accept([fresh]))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await second.run() }
            try await waitUntil("four pushes to be delivered", within: .seconds(60), observing: { delivered.all.count }) { $0 >= 4 }
            second.finish()
            try await group.waitForAll()
        }
        #expect(Set(delivered.all.map(\.device.token)) == ["01", "02", "03", "05"])
        #expect(delivered.all.count == 4)
        let (count, expired) = try #require(report.withLock { $0 })
        #expect(count == 3)
        #expect(expired == [stale])
        #expect(journal.entries.isEmpty)
    }

    @Test func aJournalThatCannotWriteRefusesThePushes() async {
        let journal = MemoryJournal()
        journal.failWrites()
        let queue = DeliveryQueue(limit: 10, durability: Self.durability(journal)) { _ in }
        #expect(await queue.accept([Self.push("aa"), Self.push("bb")]) == false)
        #expect(queue.pendingCount == 0)
    }

    @Test func pushesPastTheLimitAreRefusedAllTogether() async {
        let journal = MemoryJournal()
        let queue = DeliveryQueue(limit: 2, durability: Self.durability(journal)) { _ in }
        #expect(await queue.accept([Self.push("aa")]))
        #expect(await queue.accept([Self.push("bb"), Self.push("cc")]) == false)
        #expect(journal.entries.count == 1)
        queue.finish()
        await queue.run()
    }

    @Test func aDeliveryCutShortByCancellationStaysInTheJournal() async throws {
        let journal = MemoryJournal()
        let started = DeliveredPushes()
        let queue = DeliveryQueue(limit: 10, durability: Self.durability(journal)) { pushes in
            started.add(pushes)
            // A provider that never answers until the shutdown's deadline cancels it.
            try? await Task.sleep(for: .seconds(600))
        }
        #expect(await queue.accept([Self.push("aa")]))
        let running = Task { await queue.run() }
        try await waitUntil("the delivery to start", within: .seconds(60), observing: { started.all.count }) { $0 == 1 }
        running.cancel()
        await running.value
        #expect(journal.entries.count == 1)
    }

    @Test func aNowOrNeverPushIsNotWorthResumingLater() async throws {
        let journal = MemoryJournal()
        let queue = DeliveryQueue(limit: 10, durability: Self.durability(journal)) { _ in }
        #expect(await queue.accept([Self.push("aa", expiration: 0)]))
        #expect(journal.entries.values.first?.deadline == 1_800_000_000)
        queue.finish()
        await queue.run()
    }
}

import HeraldCore
import HeraldTesting
import Testing

@testable import HeraldStore

@Suite struct CommandLogTests {
    let stream = SyntheticCommands(seed: 11, subjects: 200)

    @Test func appendsGetIncreasingPositionsAndReadBackInOrder() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let first = try await store.log.append(stream.commands(0..<3))
            let second = try await store.log.append(stream.command(at: 3))
            #expect(first == [1, 2, 3])
            #expect(second == 4)
            #expect(try await store.log.head() == 4)
            let entries = try await store.log.entries(from: 2, limit: 10)
            #expect(entries.map(\.position) == [2, 3, 4])
            #expect(entries.map(\.command) == stream.commands(1..<4))
            #expect(try await store.log.entries(from: 1, limit: 2).count == 2)
            #expect(try await store.log.entries(from: 5, limit: 2).isEmpty)
            try await store.close()
        }
    }

    @Test func concurrentAppendsGetEveryPositionExactlyOnce() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let positions = try await withThrowingTaskGroup(of: [LogPosition].self) { group in
                for task in 0..<40 {
                    group.addTask { try await store.log.append(stream.commands(task * 5..<task * 5 + 5)) }
                }
                var all: [LogPosition] = []
                for try await positions in group {
                    // Each caller's commands stay together and in order.
                    #expect(positions == Array(positions[0]..<positions[0] + 5))
                    all += positions
                }
                return all
            }
            #expect(positions.sorted() == Array(1...200))
            try await store.close()
        }
    }

    @Test func headAndEntriesSurviveARestart() async throws {
        try await withTemporaryDirectory { path in
            do {
                let store = try LocalStore(path: path)
                try await store.log.append(stream.commands(0..<50))
                try await store.close()
            }
            let reopened = try LocalStore(path: path)
            #expect(try await reopened.log.head() == 50)
            #expect(try await reopened.log.append(stream.command(at: 50)) == 51)
            #expect(try await reopened.log.entries(from: 1, limit: 100).map(\.command) == stream.commands(0..<51))
            try await reopened.close()
        }
    }

    @Test func watchDeliversExistingThenNewEntries() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            try await store.log.append(stream.commands(0..<3))
            var iterator = store.log.watch(from: 2, batchSize: 2).makeAsyncIterator()
            #expect(try await iterator.next()?.position == 2)
            #expect(try await iterator.next()?.position == 3)
            try await store.log.append(stream.command(at: 3))
            #expect(try await iterator.next()?.command == stream.command(at: 3))
            try await store.close()
        }
    }

    @Test func waitingForTheHeadEndsWithCancellation() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let waiter = Task { try await store.log.waitForHead(beyond: 0) }
            // The waiter parks first, so cancellation goes through the waiting path.
            try await waitUntil("the waiter parks") { store.log.headWaiters == 1 }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            try await store.close()
        }
    }

    @Test func parkedWaiterWakesOnAppend() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let waiter = Task { try await store.log.waitForHead(beyond: 0) }
            try await waitUntil("the waiter parks") { store.log.headWaiters == 1 }
            try await store.log.append(stream.command(at: 0))
            #expect(try await waiter.value == 1)
            try await store.close()
        }
    }

    @Test func watchFromZeroStartsAtTheFirstEntry() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            var iterator = store.log.watch(from: 0).makeAsyncIterator()
            let first = Task { try await iterator.next() }
            try await waitUntil("the watch parks on an empty log") { store.log.headWaiters == 1 }
            try await store.log.append(stream.commands(0..<2))
            #expect(try await first.value?.position == 1)
            try await store.close()
        }
    }

    @Test func zeroLimitReadsNothing() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            try await store.log.append(stream.commands(0..<3))
            #expect(try await store.log.entries(from: 1, limit: 0).isEmpty)
            try await store.close()
        }
    }

    @Test func aFullMapFailsOnlyTheAppendThatDoesNotFit() async throws {
        try await withTemporaryDirectory { path in
            let configuration = LMDBEnvironment.Configuration(mapSize: 512 * 1024, maxMapSize: 512 * 1024)
            let store = try LocalStore(path: path, configuration: configuration)
            let key = SyntheticCommands.key(subject: 1, installation: 0)
            let huge = RegistryCommand.register(
                Registration(key: key, version: 1, device: Device(platform: .apns, token: "a"), attributes: [UInt8](repeating: 7, count: 1 << 20))
            )
            let results = await withTaskGroup(of: (Bool, Bool).self) { group in
                group.addTask { (true, (try? await store.log.append(huge)) != nil) }
                for index in 0..<8 {
                    group.addTask { (false, (try? await store.log.append(stream.command(at: index))) != nil) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0.0 }.allSatisfy { !$0.1 }, "the oversized append must fail")
            #expect(results.filter { !$0.0 }.allSatisfy { $0.1 }, "the small appends must succeed")
            #expect(try await store.log.head() == 8)
            try await store.close()
        }
    }
}

import Foundation
import HeraldCore
@testable import HeraldEtcd
@testable import HeraldStore
import HeraldTestTraits
import HeraldTesting
import Logging
import Testing

/// The etcd command log with real etcd: nodes (an LMDB view and a log each) sharing one etcd.
// Serialized: each test starts etcd members on ports picked free just before.
@Suite(.serialized, .loadHeavy) struct EtcdCommandLogTests {
    struct Node {
        var store: LocalStore
        var log: EtcdCommandLog
        var follower: LogFollower

        func catchUp() async throws { try await self.follower.catchUp() }

        /// Runs the log's watch and the follower, as a node does, until the task is cancelled.
        func following() -> Task<Void, any Error> {
            let (log, follower) = (self.log, self.follower)
            return Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await log.run() }
                    group.addTask { try await follower.run() }
                    try await group.waitForAll()
                }
            }
        }

        /// Waits (at most `limit`, scaled) until the view has applied `position`.
        func waitForApplied(_ position: LogPosition, within limit: Duration = .seconds(60)) async throws -> LogPosition {
            let view = self.store.view
            return try await waitUntil("the follower applies position \(position)", within: limit, observing: { try view.appliedPosition() }) { $0 >= position }
        }
    }

    func withNodes<T>(_ count: Int, partitions: Int = 16, maximumBatch: Int = 256, watchBuffer: Int = 8192, _ body: ([Node]) async throws -> T) async throws -> T {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        return try await withTemporaryDirectory { directory in
            let cluster = try await EtcdCluster.start(members: 1, in: directory)
            let client = EtcdClient(configuration: .init(endpoints: cluster.endpoints))
            var nodes: [Node] = []
            for index in 0..<count {
                // Sealed, as a node's are: every node opens what the others append.
                let cipher = try StoreCipher(text: EtcdCluster.testStoreKey)
                let store = try LocalStore(path: "\(directory)/node\(index)", cipher: cipher)
                let view = store.view
                var configuration = EtcdCommandLog.Configuration()
                configuration.cipher = cipher
                configuration.partitions = partitions
                configuration.maximumBatch = maximumBatch
                configuration.watchBuffer = watchBuffer
                let log = EtcdCommandLog(client: client, configuration: configuration, appliedPosition: { try view.appliedPosition() }, logger: Logger(label: "test"))
                nodes.append(Node(store: store, log: log, follower: LogFollower(log: log, view: view, logger: Logger(label: "test"))))
            }
            defer {}
            do {
                let result = try await body(nodes)
                for node in nodes { try await node.store.close() }
                try await client.shutdown()
                await cluster.stop()
                return result
            } catch {
                for node in nodes { try? await node.store.close() }
                try? await client.shutdown()
                await cluster.stop()
                throw error
            }
        }
    }

    static func register(subject: Int, installation: Int = 0, version: UInt64 = 1) -> RegistryCommand {
        let key = SyntheticCommands.key(subject: subject, installation: installation)
        return .register(Registration(key: key, version: version, device: Device(platform: .apns, token: "token-\(subject)-\(version)")))
    }

    @Test func appendsThroughOneNodeAreAppliedByEveryNode() async throws {
        try await withNodes(2) { nodes in
            let commands = (0..<20).map { Self.register(subject: $0) }
            let positions = try await nodes[0].log.append(commands)
            #expect(positions.count == 20)
            #expect(positions == positions.sorted())
            for node in nodes { try await node.catchUp() }
            for node in nodes {
                #expect(try node.store.view.recordCount() == 20)
                #expect(try node.store.view.appliedPosition() == positions.max())
            }
            let key = SyntheticCommands.key(subject: 7, installation: 0)
            #expect(try nodes[1].store.view.record(for: key)?.registration?.device.token == "token-7-1")
        }
    }

    @Test func aNodeBehindThePartitionIsFencedOffUntilItCatchesUp() async throws {
        try await withNodes(2) { nodes in
            try await nodes[0].log.append(Self.register(subject: 1, version: 1))
            try await nodes[0].catchUp()
            // Node 1 has applied nothing: its write to the same subject's partition must fail,
            // whatever it would write.
            await #expect(throws: StoreError(.fenced, "")) {
                try await nodes[1].log.append(Self.register(subject: 1, version: 2))
            }
            try await nodes[1].catchUp()
            let position = try await nodes[1].log.append(Self.register(subject: 1, version: 2))
            // Now node 0 is behind.
            await #expect(throws: StoreError(.fenced, "")) {
                try await nodes[0].log.append(Self.register(subject: 1, version: 3))
            }
            try await nodes[0].catchUp()
            #expect(try nodes[0].store.view.appliedPosition() == position)
            let key = SyntheticCommands.key(subject: 1, installation: 0)
            #expect(try nodes[0].store.view.record(for: key)?.registration?.version == 2)
        }
    }

    @Test func concurrentAppendsToOnePartitionShareTransactions() async throws {
        try await withNodes(1, partitions: 1) { nodes in
            let log = nodes[0].log
            let positions = try await withThrowingTaskGroup(of: LogPosition.self) { group in
                for subject in 0..<64 {
                    group.addTask { try await log.append(Self.register(subject: subject)) }
                }
                return try await group.reduce(into: [LogPosition]()) { $0.append($1) }
            }
            #expect(positions.count == 64)
            #expect(Set(positions).count < 64, "appends waiting for a transaction go into the next one together")
            try await nodes[0].catchUp()
            #expect(try nodes[0].store.view.recordCount() == 64)
        }
    }

    @Test func appendsToManyPartitionsShareTransactionsAndAreReadBackWhole() async throws {
        try await withNodes(2, partitions: 64) { nodes in
            let log = nodes[0].log
            let positions = try await withThrowingTaskGroup(of: LogPosition.self) { group in
                for subject in 0..<128 {
                    group.addTask { try await log.append(Self.register(subject: subject)) }
                }
                return try await group.reduce(into: [LogPosition]()) { $0.append($1) }
            }
            #expect(Set(positions).count < 128, "appends to different partitions go into one transaction")
            // A follower reading one key at a time must still apply each revision whole.
            let follower = LogFollower(log: nodes[1].log, view: nodes[1].store.view, batchSize: 1, logger: Logger(label: "test"))
            try await follower.catchUp()
            #expect(try nodes[1].store.view.recordCount() == 128)
            #expect(try nodes[1].store.view.appliedPosition() == positions.max())
        }
    }

    @Test func aFencedPartitionDoesNotFailTheOthersInItsTransaction() async throws {
        try await withNodes(2, partitions: 16) { nodes in
            try await nodes[0].log.append(Self.register(subject: 1, version: 1))
            let fencedPartition = SyntheticCommands.key(subject: 1, installation: 0).partition(of: 16)
            let others = (2..<200).filter { SyntheticCommands.key(subject: $0, installation: 0).partition(of: 16) != fencedPartition }.prefix(20)
            let log = nodes[1].log
            // Node 1 has applied nothing: its append to subject 1's partition is fenced, the
            // rest (sent at once, so mostly in the same transactions) are written.
            let results = await withTaskGroup(of: (Int, Bool).self) { group in
                group.addTask { (1, (try? await log.append(Self.register(subject: 1, version: 2))) != nil) }
                for subject in others {
                    group.addTask { (subject, (try? await log.append(Self.register(subject: subject))) != nil) }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results[1] == false)
            #expect(others.allSatisfy { results[$0] == true })
            try await nodes[1].catchUp()
            #expect(try nodes[1].store.view.recordCount() == 1 + others.count)
        }
    }

    @Test func aViewBuiltFromAnotherLogIsRefused() async throws {
        try await withNodes(1) { nodes in
            try await nodes[0].log.append(Self.register(subject: 1))
            try await nodes[0].catchUp()
            let source = try await nodes[0].log.source()
            #expect(source.hasPrefix("etcd:") && source.hasSuffix("/herald/"))
            // The same etcd under another prefix is another log, and so is the local one.
            var other = EtcdCommandLog.Configuration()
            other.prefix = "elsewhere/"
            let view = nodes[0].store.view
            let elsewhere = EtcdCommandLog(client: nodes[0].log.client, configuration: other, appliedPosition: { try view.appliedPosition() }, logger: Logger(label: "test"))
            await #expect(throws: StoreError(.wrongLog, "")) {
                try await LogFollower(log: elsewhere, view: view, logger: Logger(label: "test")).catchUp()
            }
            await #expect(throws: StoreError(.wrongLog, "")) { try await view.claimSource("local") }
            // Its own log is still fine.
            try await nodes[0].catchUp()
        }
    }

    @Test func aFollowerWhoseStartWasCompactedAwayReadsTheLogByRange() async throws {
        // etcd's auto-compaction drops the history a watch from an old revision needs; the log
        // keys themselves stay (each is written once), so the follower reads them by range and
        // watches from now on.
        try await withNodes(2, partitions: 4) { nodes in
            var last: LogPosition = 0
            for round in 0..<5 {
                last = try await nodes[0].log.append((0..<10).map { Self.register(subject: 10 * round + $0) }).max() ?? last
            }
            try await nodes[0].log.client.compact(revision: Int64(last))
            let running = nodes[1].following()
            defer { running.cancel() }
            let view = nodes[1].store.view
            #expect(try await nodes[1].waitForApplied(last) == last)
            #expect(try view.recordCount() == 50)
            // And what comes after the compaction arrives through the watch.
            let next = try await nodes[0].log.append(Self.register(subject: 999))
            _ = try await view.waitForApplied(beyond: next - 1)
            #expect(try view.recordCount() == 51)
        }
    }

    @Test func waitForHeadWakesWhenAnotherNodeAppends() async throws {
        try await withNodes(2) { nodes in
            let watching = Task { try await nodes[1].log.run() }
            defer { watching.cancel() }
            let before = try await nodes[1].log.head()
            async let woke = nodes[1].log.waitForHead(beyond: before)
            try await waitUntil("waitForHead parks before the append") { nodes[1].log.headWaiters == 1 }
            let position = try await nodes[0].log.append(Self.register(subject: 3))
            #expect(try await woke >= position)
        }
    }

    @Test func batchesOfSeveralCommandsAreCommittedWholeAndInOrder() async throws {
        // Appends of 2 and 1 commands into transactions of at most 3: every batch is a prefix of
        // the queue, so no append is skipped, repeated or left waiting.
        try await withNodes(1, partitions: 1, maximumBatch: 3) { nodes in
            let log = nodes[0].log
            let positions = try await withThrowingTaskGroup(of: [LogPosition].self) { group in
                for call in 0..<30 {
                    let commands = (0..<(call < 20 ? 2 : 1)).map { Self.register(subject: 10 * call + $0) }
                    group.addTask { try await log.append(commands) }
                }
                return try await group.reduce(into: [[LogPosition]]()) { $0.append($1) }
            }
            #expect(positions.count == 30)
            #expect(positions.allSatisfy { Set($0).count == 1 }, "a call's commands share one transaction")
            try await nodes[0].catchUp()
            #expect(try nodes[0].store.view.recordCount() == 50)
        }
    }

    @Test func aFollowingNodeAppliesWhatTheWatchStreamsThroughASmallBuffer() async throws {
        // A buffer of 4 entries: the watch is held back and resumed many times, and the follower
        // still applies every entry exactly once, in order.
        try await withNodes(2, partitions: 4, watchBuffer: 4) { nodes in
            let running = nodes[1].following()
            defer { running.cancel() }
            var last: LogPosition = 0
            for round in 0..<10 {
                let commands = (0..<30).map { Self.register(subject: 30 * round + $0) }
                last = max(last, try await nodes[0].log.append(commands).max() ?? 0)
            }
            #expect(try await nodes[1].waitForApplied(last) >= last)
            #expect(try nodes[1].store.view.recordCount() == 300)
            #expect(try await nodes[1].log.head() == last)
        }
    }
}

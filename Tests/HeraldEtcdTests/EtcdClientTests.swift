import Foundation
import HeraldEtcd
import HeraldStore
import HeraldTestTraits
import HeraldTesting
import Testing

/// The JSON-gateway client against real etcd members on 127.0.0.1.
// Serialized: each test starts etcd members on ports picked free just before.
@Suite(.serialized, .loadHeavy) struct EtcdClientTests {
    func withEtcd<T>(members: Int = 1, _ body: (EtcdCluster, EtcdClient) async throws -> T) async throws -> T {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        return try await withTemporaryDirectory { directory in
            let cluster = try await EtcdCluster.start(members: members, in: directory)
            let client = EtcdClient(configuration: Self.configuration(cluster.endpoints))
            do {
                let result = try await body(cluster, client)
                try await client.shutdown()
                await cluster.stop()
                return result
            } catch {
                try? await client.shutdown()
                await cluster.stop()
                throw error
            }
        }
    }

    /// Timeouts that bound a hang: a member on a loaded machine may take seconds to accept.
    static func configuration(_ endpoints: [String]) -> EtcdClient.Configuration {
        var configuration = EtcdClient.Configuration(endpoints: endpoints)
        configuration.requestTimeout = TestTime.bound(.seconds(30))
        configuration.connectTimeout = TestTime.bound(.seconds(10))
        return configuration
    }

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    struct QuorumlessWriteSucceeded: Error, CustomStringConvertible {
        var description: String { "a write without quorum must fail" }
    }

    @Test func putThenRangeByKeyAndPrefix() async throws {
        try await withEtcd { _, client in
            let first = try await client.put(bytes("herald/log/p001/1"), bytes("a"))
            let second = try await client.put(bytes("herald/log/p001/2"), bytes("b"))
            try await client.put(bytes("herald/logz"), bytes("outside"))
            #expect(second == first + 1)
            let one = try await client.range(bytes("herald/log/p001/1"))
            #expect(one.keyValues.map(\.value) == [bytes("a")])
            #expect(one.keyValues.first?.modRevision == first)
            let prefix = try await client.range(bytes("herald/log/"), rangeEnd: EtcdKey.prefixEnd(bytes("herald/log/")))
            #expect(prefix.keyValues.map(\.value) == [bytes("a"), bytes("b")])
            let missing = try await client.range(bytes("nope"))
            #expect(missing.keyValues.isEmpty)
            #expect(missing.revision == second + 1)
        }
    }

    @Test func fencedAppendSucceedsOnceAndTheStaleWriterSeesTheHead() async throws {
        try await withEtcd { _, client in
            let head = bytes("herald/head/p042")
            let created = try await client.txn(
                [EtcdCompare(key: head, .createRevision(0))],
                success: [.put(key: head, value: bytes("1")), .put(key: bytes("herald/log/p042/1"), value: bytes("cmd1"))],
                failure: [.range(key: head)]
            )
            #expect(created.succeeded)
            let next = try await client.txn(
                [EtcdCompare(key: head, .modRevision(created.revision))],
                success: [.put(key: head, value: bytes("2")), .put(key: bytes("herald/log/p042/2"), value: bytes("cmd2"))],
                failure: [.range(key: head)]
            )
            #expect(next.succeeded)
            #expect(next.revision == created.revision + 1)
            // A writer that last saw the first head is fenced off and told the current one.
            let stale = try await client.txn(
                [EtcdCompare(key: head, .modRevision(created.revision))],
                success: [.put(key: head, value: bytes("2")), .put(key: bytes("herald/log/p042/2"), value: bytes("other"))],
                failure: [.range(key: head)]
            )
            #expect(!stale.succeeded)
            #expect(stale.revision == next.revision, "a failed compare writes nothing")
            #expect(stale.ranges.first?.first?.modRevision == next.revision)
            #expect(try await client.range(bytes("herald/log/p042/2")).keyValues.first?.value == bytes("cmd2"))
        }
    }

    @Test func leasesKeepKeysAliveAndRevokingDeletesThem() async throws {
        try await withEtcd { _, client in
            // Long enough that a loaded machine reaches the put before the lease ends.
            let lease = try await client.grantLease(ttl: 60)
            #expect(lease.ttl >= 2)
            try await client.put(bytes("herald/members/a"), bytes("127.0.0.1:1"), lease: lease.id)
            #expect(try await client.keepAlive(lease: lease.id) > 0)
            try await client.revoke(lease: lease.id)
            #expect(try await client.range(bytes("herald/members/a")).keyValues.isEmpty)
            #expect(try await client.keepAlive(lease: lease.id) == 0, "a gone lease answers TTL 0")
            await #expect(throws: EtcdError(.leaseNotFound, "")) {
                try await client.put(bytes("herald/members/b"), bytes("x"), lease: lease.id)
            }
        }
    }

    @Test func watchDeliversHistoryThenLiveChangesInRevisionOrder() async throws {
        try await withEtcd { _, client in
            let start = try await client.put(bytes("herald/log/p001/1"), bytes("a"))
            _ = try await client.txn([], success: [.put(key: bytes("herald/log/p001/2"), value: bytes("b")), .put(key: bytes("herald/log/p002/1"), value: bytes("c"))])
            try await client.put(bytes("herald/other"), bytes("not watched"))
            var seen: [(Int64, [UInt8])] = []
            var batches = 0
            for try await batch in client.watch(prefix: bytes("herald/log/"), from: start, silenceLimit: TestTime.bound(.seconds(30))) {
                guard !batch.events.isEmpty else { continue }
                batches += 1
                seen += batch.events.map { ($0.keyValue.modRevision, $0.keyValue.value) }
                if seen.count == 3 {
                    try await client.put(bytes("herald/log/p003/1"), bytes("d"))
                }
                if seen.count == 4 { break }
            }
            #expect(seen.map(\.1) == [bytes("a"), bytes("b"), bytes("c"), bytes("d")])
            #expect(seen[1].0 == seen[2].0, "one transaction, one revision")
            #expect(seen.map(\.0) == seen.map(\.0).sorted())
        }
    }

    @Test func watchFromACompactedRevisionSaysSo() async throws {
        try await withEtcd { _, client in
            try await client.put(bytes("herald/log/1"), bytes("a"))
            let second = try await client.put(bytes("herald/log/2"), bytes("b"))
            try await client.compact(revision: second)
            await #expect(throws: EtcdError(.compacted, "")) {
                for try await _ in client.watch(prefix: bytes("herald/log/"), from: 1, silenceLimit: TestTime.bound(.seconds(30))) {}
            }
        }
    }

    @Test func anUnreachableFirstEndpointIsSkipped() async throws {
        try await withEtcd { cluster, _ in
            let client = EtcdClient(configuration: Self.configuration(["http://127.0.0.1:\(try EtcdCluster.freePort())"] + cluster.endpoints))
            let revision = try await client.put(bytes("k"), bytes("v"))
            #expect(revision > 0)
            try await client.shutdown()
        }
    }

    @Test func withoutQuorumWritesFailAtOnceAsUnavailable() async throws {
        try await withEtcd(members: 3) { cluster, client in
            try await client.put(bytes("k"), bytes("1"))
            await cluster.kill(0)
            // One member down: a majority remains. If it was the leader, writes resume after the
            // election (a write caught in it times out, outcome unknown; a plain put may repeat).
            try await waitUntil("a write succeeds on the remaining majority", within: .seconds(60)) {
                (try? await client.put(bytes("k"), bytes("2"))) != nil
            }
            await cluster.kill(1)
            let survivor = EtcdClient(configuration: Self.configuration([cluster.members[2].clientURL]))
            // hasleader makes the member refuse before proposing ("no leader", nothing written)
            // instead of waiting out etcd's 7 s request timeout. Until the survivor notices the
            // leader is gone, a write may still be proposed and time out: every attempt fails,
            // and one is soon the refusal.
            let refusal = try await waitUntil("the survivor refuses a write with no leader", within: .seconds(60), every: .milliseconds(100)) { () async throws -> EtcdError? in
                do {
                    try await survivor.put(bytes("k"), bytes("3"))
                    throw QuorumlessWriteSucceeded()
                } catch let error as EtcdError {
                    return Optional(error)
                }
            } _: { (error: EtcdError?) in
                error.map { $0.code == .unavailable && $0.message.contains("no leader") } ?? false
            }
            #expect(refusal?.mayHaveCommitted == false)
            try await survivor.shutdown()
        }
    }
}

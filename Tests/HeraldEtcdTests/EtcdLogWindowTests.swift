import Foundation
import HeraldCluster
import HeraldCore
@testable import HeraldEtcd
@testable import HeraldStore
import HeraldTestTraits
import HeraldTesting
import Logging
import Testing

/// The log's window and shared values on real etcd: members publish how far they applied under their leases, one
/// holds the trimmer's role, trimming deletes exactly the entries at or below the trim point, and
/// a reader asking for trimmed entries is told so instead of getting a gap.
@Suite(.serialized, .loadHeavy) struct EtcdLogWindowTests {
    let nodes = EtcdCommandLogTests()

    func logKeys(_ node: EtcdCommandLogTests.Node) async throws -> [EtcdKeyValue] {
        let prefix = node.log.logPrefix
        return try await node.log.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix), keysOnly: true).keyValues
    }

    @Test func trimmingDeletesExactlyTheEntriesAtOrBelowTheTrimPointAndReadersBelowItAreToldSo() async throws {
        try await self.nodes.withNodes(2, partitions: 4) { nodes in
            let window = EtcdLogWindow(client: nodes[0].log.client, log: nodes[0].log)
            var positions: [LogPosition] = []
            for round in 0..<6 {
                // Several rounds, so every partition holds several log keys.
                positions += try await nodes[0].log.append((0..<8).map { EtcdCommandLogTests.register(subject: $0, version: UInt64(round + 1)) })
            }
            try await nodes[0].catchUp()
            let distinct = Array(Set(positions)).sorted()
            let cut = distinct[distinct.count / 2]
            let before = try await self.logKeys(nodes[0])
            #expect(try await window.trimPoint() == 0)

            // A small limit: the trim is done in several calls.
            var deleted = 0
            while true {
                let batch = try await window.trim(through: cut, limit: 3)
                if batch == 0 { break }
                deleted += batch
            }
            let after = try await self.logKeys(nodes[0])
            #expect(try await window.trimPoint() == cut)
            #expect(deleted == before.count { LogPosition($0.modRevision) <= cut })
            #expect(after.allSatisfy { LogPosition($0.modRevision) > cut }, "nothing at or below the trim point is left")
            #expect(Set(after.map(\.key)) == Set(before.filter { LogPosition($0.modRevision) > cut }.map(\.key)), "nothing above it went")

            // The rest of the log is still read whole; below the trim point is refused, not skipped.
            let rest = try await nodes[1].log.readEntries(from: cut + 1, limit: 1000)
            #expect(rest.map(\.position).allSatisfy { $0 > cut })
            #expect(Set(rest.map(\.position)) == Set(distinct.filter { $0 > cut }))
            let error = try await #require(throws: StoreError.self) { try await nodes[1].log.readEntries(from: 1, limit: 1000) }
            #expect(error.code == .trimmed)
            // A follower that far behind stops instead of applying past a gap.
            await #expect(throws: StoreError.self) { try await nodes[1].follower.catchUp() }
            #expect(try nodes[1].store.view.recordCount() == 0)

            // Appends go on after a trim, and compaction through the trim point leaves them alone.
            try await window.compact(through: cut)
            let next = try await nodes[0].log.append(EtcdCommandLogTests.register(subject: 100))
            try await nodes[0].catchUp()
            #expect(try nodes[0].store.view.appliedPosition() == next)
        }
    }

    @Test func appliedPositionsLiveAsLongAsTheLeaseAndOneMemberHoldsTheTrimmersRole() async throws {
        try await self.nodes.withNodes(1) { nodes in
            let client = nodes[0].log.client
            let window = EtcdLogWindow(client: client, log: nodes[0].log)
            let membership = EtcdMembership(client: client, prefix: nodes[0].log.configuration.prefix)
            let a = try await membership.join(as: ClusterMember(id: "a", url: "http://127.0.0.1:1"), ttl: 30)
            let b = try await membership.join(as: ClusterMember(id: "b", url: "http://127.0.0.1:2"), ttl: 30)
            try await window.publishApplied(40, member: "a", lease: a)
            try await window.publishApplied(25, member: "b", lease: b)
            #expect(try await window.appliedPositions() == ["a": 40, "b": 25])
            #expect(try await window.claimTrimmer(member: "a", lease: a))
            #expect(try await window.claimTrimmer(member: "a", lease: a), "kept by its holder")
            #expect(try await window.claimTrimmer(member: "b", lease: b) == false)
            // b's lease ends (it died): its position no longer holds the window open.
            try await membership.leave(b)
            #expect(try await window.appliedPositions() == ["a": 40])
            // a's ends: b (back under a new lease) takes the role.
            try await membership.leave(a)
            let b2 = try await membership.join(as: ClusterMember(id: "b", url: "http://127.0.0.1:2"), ttl: 30)
            #expect(try await window.claimTrimmer(member: "b", lease: b2))
        }
    }

    @Test func sharedValuesAreReplacedByCompareAndSet() async throws {
        try await self.nodes.withNodes(1) { nodes in
            let values = EtcdSharedValues(client: nodes[0].log.client, prefix: nodes[0].log.configuration.prefix)
            let empty = try await values.read("apns/TEAM/KEY")
            #expect(empty.value == nil && empty.version == 0)
            #expect(try await values.store([1], as: "apns/TEAM/KEY", ifVersion: 0))
            #expect(try await values.store([2], as: "apns/TEAM/KEY", ifVersion: 0) == false, "another node stored one first")
            let first = try await values.read("apns/TEAM/KEY")
            #expect(first.value == [1] && first.version > 0)
            #expect(try await values.store([3], as: "apns/TEAM/KEY", ifVersion: first.version))
            #expect(try await values.read("apns/TEAM/KEY").value == [3])
        }
    }
}

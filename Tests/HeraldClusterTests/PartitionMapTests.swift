import HeraldCluster
import Testing

@Suite struct PartitionMapTests {
    @Test func everyPartitionHasOneOwnerAndEveryNodeComputesTheSameMap() {
        let one = PartitionMap(partitions: 256, members: ["node1", "node2", "node3"])
        let other = PartitionMap(partitions: 256, members: ["node3", "node1", "node2", "node1"])
        #expect(one == other)
        #expect(one.owners.count == 256)
        let counts = ["node1", "node2", "node3"].map { one.owned(by: $0).count }
        #expect(counts.reduce(0, +) == 256)
        // Rendezvous hashing spreads evenly enough: no node gets less than half its share.
        #expect(counts.allSatisfy { $0 > 256 / 6 }, "\(counts)")
    }

    @Test func aLeavingMemberMovesOnlyItsOwnPartitions() {
        let before = PartitionMap(partitions: 256, members: ["node1", "node2", "node3"])
        let after = PartitionMap(partitions: 256, members: ["node1", "node3"])
        for partition in 0..<256 where before.owner(of: partition) != "node2" {
            #expect(after.owner(of: partition) == before.owner(of: partition))
        }
        #expect(after.owned(by: "node2").isEmpty)
    }

    @Test func aJoiningMemberTakesPartitionsOnlyForItself() {
        let before = PartitionMap(partitions: 256, members: ["node1", "node2"])
        let after = PartitionMap(partitions: 256, members: ["node1", "node2", "node3"])
        for partition in 0..<256 where after.owner(of: partition) != "node3" {
            #expect(after.owner(of: partition) == before.owner(of: partition))
        }
        #expect(!after.owned(by: "node3").isEmpty)
    }

    @Test func noMembersOwnNothing() {
        let empty = PartitionMap(partitions: 16, members: [])
        #expect(empty.owner(of: 3) == nil)
    }
}

/// Which member owns each partition: rendezvous (highest random weight) hashing over the live
/// members, so every node computes the same map from the same member set, and a member joining
/// or leaving moves only the partitions it gains or held.
public struct PartitionMap: Sendable, Hashable {
    public let partitions: Int
    /// Member ids, sorted.
    public let members: [String]
    /// The owner of each partition; empty when there is no member.
    public let owners: [String]

    public init(partitions: Int, members: some Sequence<String>) {
        let members = Array(Set(members)).sorted()
        self.partitions = partitions
        self.members = members
        self.owners = members.isEmpty
            ? []
            : (0..<partitions).map { partition in
                members.max { Self.weight($0, partition) < Self.weight($1, partition) } ?? members[0]
            }
    }

    public func owner(of partition: Int) -> String? {
        self.owners.indices.contains(partition) ? self.owners[partition] : nil
    }

    /// The partitions `member` owns, ascending.
    public func owned(by member: String) -> [Int] {
        self.owners.indices.filter { self.owners[$0] == member }
    }

    /// FNV-1a of the member id and the partition, then a 64-bit mix so close ids and partition
    /// numbers spread evenly; stable across processes and builds.
    static func weight(_ member: String, _ partition: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(member.utf8) + withUnsafeBytes(of: UInt32(partition).littleEndian, Array.init) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash
    }
}

public import HeraldStore

/// One node's view of the cluster, as `GET /cluster` serves it and `herald cluster status`
/// reads it.
public struct ClusterStatus: Codable, Sendable, Hashable {
    public var node: String
    /// `cluster`, or `single` for a node alone.
    public var mode: String
    public var members: [ClusterMember]
    public var partitions: Int
    public var owned: [Int]
    public var appliedRevision: UInt64
    public var logHead: UInt64
    public var lag: UInt64
    /// `reachable`, `unreachable`, or `none` alone.
    public var etcd: String
    /// The view's fingerprint, when asked for (`?digest=true`): nodes that applied the same log
    /// show the same one.
    public var view: RegistryDigest?

    public init(
        node: String,
        mode: String,
        members: [ClusterMember],
        partitions: Int,
        owned: [Int],
        appliedRevision: UInt64,
        logHead: UInt64,
        etcd: String
    ) {
        self.node = node
        self.mode = mode
        self.members = members
        self.partitions = partitions
        self.owned = owned
        self.appliedRevision = appliedRevision
        self.logHead = logHead
        self.lag = logHead > appliedRevision ? logHead - appliedRevision : 0
        self.etcd = etcd
    }
}

/// A live node of the cluster as its member key in etcd says: its id and the URL other nodes
/// reach it at.
public struct ClusterMember: Sendable, Hashable, Codable {
    public var id: String
    public var url: String

    public init(id: String, url: String) {
        self.id = id
        self.url = url
    }
}

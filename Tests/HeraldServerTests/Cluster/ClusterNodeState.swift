/// What one node of a test cluster said about itself while the test waited for it to be ready.
struct ClusterNodeState: CustomStringConvertible {
    /// How the test names the node (`node1`, `port 27692`).
    var node: String
    /// How many members its `/cluster` listed, or `nil` when it did not answer.
    var members: Int?
    /// Its `/readyz` status, or `nil` when it did not answer.
    var readyz: Int?

    var description: String {
        "\(self.node): \(self.members.map { "\($0) members" } ?? "no /cluster answer"), /readyz \(self.readyz.map { "\($0)" } ?? "unanswered")"
    }
}

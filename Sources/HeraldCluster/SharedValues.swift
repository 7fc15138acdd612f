/// Small values the nodes of a cluster share and replace with compare-and-set, such as the
/// provider token of a signing key: the first node to replace a value wins, and the others read
/// what it stored.
public protocol SharedValues: Sendable {
    /// The value stored under `name` and its version (0: nothing stored).
    func read(_ name: String) async throws -> (value: [UInt8]?, version: Int64)

    /// Stores `value` under `name` if its version is still `version`; `false` when another node
    /// replaced it first.
    func store(_ value: [UInt8], as name: String, ifVersion version: Int64) async throws -> Bool
}

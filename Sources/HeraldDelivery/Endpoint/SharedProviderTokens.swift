public import Foundation

/// Where the nodes of a cluster keep the provider tokens they share, so one signing key has one
/// token at a time cluster-wide: APNs throttles a key whose token changes too often
/// (`TooManyProviderTokenUpdates`), and every node minting its own would change it once per node.
/// A node reads the stored token and uses it while it is young enough; the first node to find it
/// too old stores a new one, and the others adopt that one. Alone there is none.
public protocol SharedProviderTokens: Sendable {
    /// The token stored under `name`, and the version to replace it against (0: none stored).
    func read(_ name: String) async throws -> (token: SharedProviderToken?, version: Int64)

    /// Stores `token` under `name` unless another node stored one since `version`; `false` then.
    func store(_ token: SharedProviderToken, as name: String, ifVersion version: Int64) async throws -> Bool
}

/// A provider token as the nodes share it: its value and when it was issued (its `iat`, wall
/// time, which every node compares with its own).
public struct SharedProviderToken: Sendable, Hashable, Codable {
    public var value: String
    public var issuedAt: Date

    public init(value: String, issuedAt: Date) {
        self.value = value
        self.issuedAt = issuedAt
    }
}

/// What `Membership` needs of the service that coordinates the cluster (etcd, or an in-memory
/// one in tests): a member record kept alive by a lease, and the member set as it changes. The
/// loop around it — registering, renewing a third of the TTL, restarting the watch, the
/// partition map — is `Membership`'s and the same for every backend.
public protocol MembershipBackend: Sendable {
    /// Grants a lease of `ttl` seconds (a backend may grant more) and records `member` under it,
    /// unless a live node already holds the member's id: then it throws `MembershipError.idTaken`
    /// and keeps no lease.
    func join(as member: ClusterMember, ttl: Int64) async throws -> MemberLease

    /// Renews the lease; `false` when it is gone (expired or revoked), after which the member
    /// must join again. Throws when the backend cannot be reached, which is not yet a loss.
    func renew(_ lease: MemberLease) async throws -> Bool

    /// Ends the lease now, so the member leaves at once instead of a TTL later.
    func leave(_ lease: MemberLease) async throws

    /// Calls `onChange` with the member set now and after every change (perhaps more often, with
    /// the set unchanged, which also tells the caller the backend answers) until it returns
    /// `false` or the task is cancelled (then it returns or throws `CancellationError`); throws
    /// when following fails, and the caller starts again.
    func followMembers(_ onChange: ([ClusterMember]) async -> Bool) async throws
}

/// A member's lease, as the backend granted it.
public struct MemberLease: Sendable, Hashable {
    public var id: Int64
    /// Seconds.
    public var ttl: Int64

    public init(id: Int64, ttl: Int64) {
        self.id = id
        self.ttl = ttl
    }
}

/// Why joining failed in a way the backend cannot retry by itself.
public enum MembershipError: Error, Equatable, CustomStringConvertible {
    /// A live node holds this member id; it is free once that node's lease ends.
    case idTaken(String)

    public var description: String {
        switch self {
        case .idTaken(let id): "another live node holds the member id \(id); waiting for its lease to end"
        }
    }
}

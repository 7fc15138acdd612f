public import HeraldCore

/// A failed etcd call, classified by what the caller can do about it.
public struct EtcdError: CodedError {
    public enum Code: String, Sendable {
        /// No member answered, or the one that did has no leader or timed out. Retry later; for a
        /// write, `mayHaveCommitted` says whether it could have been applied anyway.
        case unavailable = "etcd.unavailable"
        /// The revision asked for is compacted away: restore from a snapshot.
        case compacted = "etcd.compacted"
        /// The revision asked for is beyond the store's.
        case futureRevision = "etcd.future_revision"
        /// The lease is unknown or expired.
        case leaseNotFound = "etcd.lease_not_found"
        /// The database is over its quota (NOSPACE alarm): writes fail until an operator compacts.
        case noSpace = "etcd.no_space"
        /// etcd refused the request itself (too large, too many operations, a bad argument).
        case refused = "etcd.refused"
        /// An answer that is not etcd's JSON.
        case malformedResponse = "etcd.malformed_response"
    }

    public let code: Code
    public let message: String
    /// For `unavailable` writes: the request may have reached etcd before the failure, so its
    /// outcome is unknown and must be read back before anything is retried.
    public let mayHaveCommitted: Bool

    public init(_ code: Code, _ message: String, mayHaveCommitted: Bool = false) {
        self.code = code
        // Messages name endpoints, whose URLs may carry credentials.
        self.message = URLRedaction.redact(message)
        self.mayHaveCommitted = mayHaveCommitted
    }
}

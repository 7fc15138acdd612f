public import HeraldCore

/// An error of the store, with a stable code for logs and metric labels.
public struct StoreError: CodedError {
    public enum Code: String, Sendable {
        /// LMDB returned an error not covered by a more specific code.
        case lmdb = "store.lmdb"
        /// The map is full and may not grow further (`store.max-map-size`).
        case full = "store.full"
        /// Stored bytes do not decode: a bug or a damaged file, never normal operation.
        case corrupt = "store.corrupt"
        /// A value written by a newer Herald than this one.
        case unsupportedFormat = "store.unsupported_format"
        /// The store was closed while work was pending.
        case closed = "store.closed"
        /// Another process (or another open in this one) has the store directory.
        case locked = "store.locked"
        /// A key or value is too large for LMDB.
        case tooLarge = "store.too_large"
        /// The append was fenced off: the partition's head moved past what this node has applied
        /// (another node wrote it, or this node lost ownership). Catch up, check again, retry.
        case fenced = "store.fenced"
        /// The replicated log cannot be reached or has no quorum; retry later. Nothing was
        /// written, or it is unknown whether it was.
        case unavailable = "store.unavailable"
        /// The view was built from another log than the one it is asked to follow.
        case wrongLog = "store.wrong_log"
        /// Two front doors declared the same registration scope or marker namespace.
        case clash = "store.clash"
        /// The log was trimmed past the entries asked for: a view that far behind starts again
        /// from a snapshot.
        case trimmed = "store.log_trimmed"
    }

    public let code: Code
    public let message: String
    /// LMDB's return code, when the error came from LMDB.
    public let lmdbCode: Int32?

    public init(_ code: Code, _ message: String, lmdbCode: Int32? = nil) {
        self.code = code
        self.message = message
        self.lmdbCode = lmdbCode
    }


}

public import HeraldCore

/// What to do after a provider answered one attempt.
public enum AttemptVerdict: Sendable, Hashable {
    /// Done: report this outcome.
    case finish(DeliveryOutcome)
    /// Try again later (no sooner than `after` when the provider said so), possibly on another
    /// connection or with a fresh provider token.
    case retry(reason: String, after: Duration?, then: RetryPreparation)

    public enum RetryPreparation: Sendable, Hashable {
        case none
        /// The connection is unusable (GOAWAY, idle timeout, key binding): open another.
        case newConnection
        /// The provider token expired: mint a new one first.
        case refreshToken
    }
}

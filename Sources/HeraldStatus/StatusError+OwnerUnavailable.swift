public import HeraldCluster

extension StatusError: OwnerUnavailableError {
    /// Left unanswered, which a Status client takes as "send again".
    public static func ownerUnavailable(_ reason: String) -> StatusError {
        StatusError(.internalFailure, "the message cannot be handled now: \(reason)")
    }
}

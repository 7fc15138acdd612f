public import HeraldCore

/// How one push of a batch ended, and how long it took over all its attempts: pushes of one
/// batch end at different times, and each is timed as a single push is.
public struct DeliveryResult: Sendable {
    /// The outcome, or the `AdmissionError` of a push that was not admitted.
    public var result: Result<DeliveryOutcome, AdmissionError>
    public var duration: Duration
    /// The provider's last answer to it, when one came: what `herald send` shows an operator
    /// (the status, `apns-id`, FCM's message name). Front doors answer from `result`.
    public var answer: HTTP2Response?

    public init(_ result: Result<DeliveryOutcome, AdmissionError>, duration: Duration, answer: HTTP2Response? = nil) {
        self.result = result
        self.duration = duration
        self.answer = answer
    }
}

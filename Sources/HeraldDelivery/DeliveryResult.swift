public import HeraldCore

/// How one push of a batch ended, and how long it took over all its attempts: pushes of one
/// batch end at different times, and each is timed as a single push is.
public struct DeliveryResult: Sendable {
    /// The outcome, or the `AdmissionError` of a push that was not admitted.
    public var result: Result<DeliveryOutcome, AdmissionError>
    public var duration: Duration

    public init(_ result: Result<DeliveryOutcome, AdmissionError>, duration: Duration) {
        self.result = result
        self.duration = duration
    }
}

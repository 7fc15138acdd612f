import Foundation

/// Exponential back-off with jitter, as a pure function of the attempt number.
///
/// `delay(afterAttempt: n)` = initial × multiplierⁿ⁻¹, capped at `maximum`, then spread by
/// ±`jitter` so that many notifications failing together do not retry together. A provider's
/// `Retry-After` wins when it asks for longer.
public struct Backoff: Sendable, Hashable {
    public var initial: Duration
    public var multiplier: Double
    public var maximum: Duration
    /// Fraction of the delay added or removed at random, 0...1.
    public var jitter: Double

    public init(initial: Duration = .milliseconds(200), multiplier: Double = 2, maximum: Duration = .seconds(30), jitter: Double = 0.2) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    public func delay(
        afterAttempt attempt: Int,
        retryAfter: Duration? = nil,
        using random: inout some RandomNumberGenerator
    ) -> Duration {
        let initialSeconds = Self.seconds(self.initial)
        let maximumSeconds = Self.seconds(self.maximum)
        let exponent = Double(max(attempt, 1) - 1)
        let base = min(initialSeconds * pow(self.multiplier, exponent), maximumSeconds)
        let spread = self.jitter == 0 ? 0 : Double.random(in: -self.jitter...self.jitter, using: &random)
        var seconds = max(0, base * (1 + spread))
        if let retryAfter {
            seconds = max(seconds, min(Self.seconds(retryAfter), Self.seconds(RetryAfter.maximum)))
        }
        return .microseconds(Int64((seconds * 1_000_000).rounded()))
    }

    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        var random = SystemRandomNumberGenerator()
        return self.delay(afterAttempt: attempt, retryAfter: retryAfter, using: &random)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

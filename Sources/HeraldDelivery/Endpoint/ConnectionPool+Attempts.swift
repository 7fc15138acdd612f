import HeraldCore

extension ConnectionPool {
    /// One request's attempts as a value: how many it has had, what the last retry was for,
    /// whether its credentials were refreshed, and its deadline. Each verdict an attempt ends
    /// in returns what to do next; the pool does it (retire a connection, refresh the token,
    /// sleep) and starts the next attempt. Tested alone on plain instants, without connections.
    struct Attempts<Instant: InstantProtocol> where Instant.Duration == Duration {
        /// What to do after an attempt: first `preparation`, then finish or try again.
        struct Next: Equatable {
            enum Then: Equatable {
                /// Report this outcome.
                case finish(DeliveryOutcome)
                /// Try again after this long.
                case retry(after: Duration)
            }

            var then: Then
            /// The connection the attempt used cannot be used again (a GOAWAY, a rejected token).
            var retireConnection = false
            /// The credentials' authorization was rejected: hand it back so a fresh one is made.
            var refreshCredentials = false
            var reason = ""
        }

        let maximum: Int
        let deadline: Instant
        let backoff: Backoff
        private(set) var count = 0
        private(set) var lastReason = "no attempt"
        private(set) var refreshedCredentials = false

        init(maximum: Int, deadline: Instant, backoff: Backoff) {
            self.maximum = maximum
            self.deadline = deadline
            self.backoff = backoff
        }

        /// Counts the attempt about to be made.
        mutating func begin() {
            self.count += 1
        }

        /// How long the attempt under way may wait for its answer; `nil` when the deadline has
        /// passed before it could leave (then `deadlinePassed` is how the request ended).
        func timeout(now: Instant, requestTimeout: Duration) -> Duration? {
            let remaining = now.duration(to: self.deadline)
            return remaining > .zero ? min(requestTimeout, remaining) : nil
        }

        var deadlinePassed: DeliveryOutcome {
            .failed(DeliveryFailure(.deadlineExceeded, "deadline exceeded after \(self.count - 1) attempts: \(self.lastReason)"))
        }

        /// How the request ended when the attempts ran out without a verdict that finished it.
        var exhausted: DeliveryOutcome {
            .failed(DeliveryFailure(.retriesExhausted, "gave up after \(self.count) attempts: \(self.lastReason)"))
        }

        /// What the attempt's verdict means for the request. `hasAuthorization` is whether the
        /// attempt carried a provider token (a client certificate has nothing to refresh).
        mutating func ended(_ verdict: AttemptVerdict, now: Instant, hasAuthorization: Bool, using random: inout some RandomNumberGenerator) -> Next {
            switch verdict {
            case .finish(let outcome):
                return Next(then: .finish(outcome))
            case .retry(let reason, let after, let preparation):
                self.lastReason = reason
                var next = Next(then: .retry(after: .zero), retireConnection: preparation != .none, reason: reason)
                if preparation == .refreshToken {
                    // A fresh token that is refused too means the credentials, not their age,
                    // are wrong: asking again would only repeat the refusal. Without a token (a
                    // client certificate) there is nothing to refresh.
                    guard !self.refreshedCredentials, hasAuthorization else { return Next(then: .finish(.failed(reason: reason))) }
                    self.refreshedCredentials = true
                    next.refreshCredentials = true
                }
                guard self.count < self.maximum else {
                    next.then = .finish(self.exhausted)
                    return next
                }
                // A connection-level failure or a refreshed token is retried at once; the
                // provider's own refusals wait their back-off.
                let delay = preparation != .none && after == nil ? Duration.zero : self.backoff.delay(afterAttempt: self.count, retryAfter: after, using: &random)
                guard now.advanced(by: delay) < self.deadline else {
                    next.then = .finish(.failed(DeliveryFailure(.deadlineExceeded, "deadline exceeded after \(self.count) attempts: \(reason)")))
                    return next
                }
                next.then = .retry(after: delay)
                return next
            }
        }
    }
}

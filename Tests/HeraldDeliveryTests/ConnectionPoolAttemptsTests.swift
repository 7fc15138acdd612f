import HeraldCore
import Testing

@testable import HeraldDelivery

/// One request's attempts as a value: retry, back-off, `Retry-After`, a refreshed token, the
/// attempt limit and the deadline, on plain instants.
@Suite struct ConnectionPoolAttemptsTests {
    typealias Instant = DeliveryClock.Instant
    typealias Attempts = ConnectionPool.Attempts<Instant>

    static let start = Instant(offset: .seconds(10))
    static let backoff = Backoff(initial: .milliseconds(200), multiplier: 2, maximum: .seconds(30), jitter: 0)

    func attempts(maximum: Int = 6, deadline: Duration = .seconds(60)) -> Attempts {
        Attempts(maximum: maximum, deadline: Self.start + deadline, backoff: Self.backoff)
    }

    @Test func aProviderRefusalBacksOffAndALongerRetryAfterWins() {
        var attempts = self.attempts()
        var random = SystemRandomNumberGenerator()
        attempts.begin()
        let first = attempts.ended(.retry(reason: "HTTP 503", after: nil, then: .none), now: Self.start, hasAuthorization: true, using: &random)
        #expect(first == .init(then: .retry(after: .milliseconds(200)), reason: "HTTP 503"))
        attempts.begin()
        let second = attempts.ended(.retry(reason: "TooManyRequests", after: .seconds(5), then: .none), now: Self.start, hasAuthorization: true, using: &random)
        #expect(second.then == .retry(after: .seconds(5)))
        #expect(!second.retireConnection)
    }

    @Test func aConnectionFailureIsRetriedAtOnceOnAnotherConnection() {
        var attempts = self.attempts()
        var random = SystemRandomNumberGenerator()
        attempts.begin()
        let next = attempts.ended(.retry(reason: "goaway", after: nil, then: .newConnection), now: Self.start, hasAuthorization: false, using: &random)
        #expect(next == .init(then: .retry(after: .zero), retireConnection: true, reason: "goaway"))
    }

    @Test func anExpiredTokenIsRefreshedOnceThenTheRefusalStands() {
        var attempts = self.attempts()
        var random = SystemRandomNumberGenerator()
        attempts.begin()
        let refreshed = attempts.ended(.retry(reason: "ExpiredProviderToken", after: nil, then: .refreshToken), now: Self.start, hasAuthorization: true, using: &random)
        #expect(refreshed == .init(then: .retry(after: .zero), retireConnection: true, refreshCredentials: true, reason: "ExpiredProviderToken"))
        attempts.begin()
        let again = attempts.ended(.retry(reason: "ExpiredProviderToken", after: nil, then: .refreshToken), now: Self.start, hasAuthorization: true, using: &random)
        #expect(again == .init(then: .finish(.failed(reason: "ExpiredProviderToken"))))

        var certificate = self.attempts()
        certificate.begin()
        let nothingToRefresh = certificate.ended(.retry(reason: "ExpiredProviderToken", after: nil, then: .refreshToken), now: Self.start, hasAuthorization: false, using: &random)
        #expect(nothingToRefresh.then == .finish(.failed(reason: "ExpiredProviderToken")))
    }

    @Test func theLastAttemptEndsWithRetriesExhaustedAndStillRetiresItsConnection() {
        var attempts = self.attempts(maximum: 2)
        var random = SystemRandomNumberGenerator()
        attempts.begin()
        _ = attempts.ended(.retry(reason: "HTTP 500", after: nil, then: .none), now: Self.start, hasAuthorization: true, using: &random)
        attempts.begin()
        let last = attempts.ended(.retry(reason: "goaway", after: nil, then: .newConnection), now: Self.start, hasAuthorization: true, using: &random)
        #expect(last.retireConnection)
        #expect(last.then == .finish(.failed(DeliveryFailure(.retriesExhausted, "gave up after 2 attempts: goaway"))))
    }

    @Test func aBackOffPastTheDeadlineEndsItNowAndALateAttemptDoesNotLeave() {
        var attempts = self.attempts(deadline: .seconds(3))
        var random = SystemRandomNumberGenerator()
        attempts.begin()
        #expect(attempts.timeout(now: Self.start, requestTimeout: .seconds(15)) == .seconds(3), "an attempt waits no longer than the deadline")
        let next = attempts.ended(.retry(reason: "TooManyRequests", after: .seconds(5), then: .none), now: Self.start, hasAuthorization: true, using: &random)
        #expect(next.then == .finish(.failed(DeliveryFailure(.deadlineExceeded, "deadline exceeded after 1 attempts: TooManyRequests"))))

        var late = self.attempts(deadline: .seconds(1))
        late.begin()
        #expect(late.timeout(now: Self.start + .seconds(2), requestTimeout: .seconds(15)) == nil)
        #expect(late.deadlinePassed == .failed(DeliveryFailure(.deadlineExceeded, "deadline exceeded after 0 attempts: no attempt")))
    }

    @Test func aFinishingVerdictEndsWithItsOutcome() {
        var attempts = self.attempts()
        var random = SystemRandomNumberGenerator()
        attempts.begin()
        let dead = DeliveryOutcome.deadToken(DeliveryFailure(.unregistered, "Unregistered"))
        #expect(attempts.ended(.finish(dead), now: Self.start, hasAuthorization: true, using: &random) == .init(then: .finish(dead)))
    }
}

import Foundation
import HeraldTesting
import Testing

@testable import HeraldDelivery

@Suite struct BackoffTests {
    let exact = Backoff(initial: .milliseconds(100), multiplier: 2, maximum: .seconds(1), jitter: 0)

    @Test func delaysDoubleUpToTheCap() {
        #expect(exact.delay(afterAttempt: 1) == .milliseconds(100))
        #expect(exact.delay(afterAttempt: 2) == .milliseconds(200))
        #expect(exact.delay(afterAttempt: 4) == .milliseconds(800))
        #expect(exact.delay(afterAttempt: 5) == .seconds(1))
        #expect(exact.delay(afterAttempt: 60) == .seconds(1))
    }

    @Test func longerRetryAfterWinsShorterDoesNot() {
        #expect(exact.delay(afterAttempt: 1, retryAfter: .seconds(5)) == .seconds(5))
        #expect(exact.delay(afterAttempt: 3, retryAfter: .milliseconds(10)) == .milliseconds(400))
    }

    @Test func jitterStaysWithinItsBand() {
        let jittered = Backoff(initial: .seconds(1), multiplier: 2, maximum: .seconds(10), jitter: 0.2)
        var random = SplitMix64(seed: 7)
        var seen = Set<Duration>()
        for _ in 0..<200 {
            let delay = jittered.delay(afterAttempt: 1, using: &random)
            #expect(delay >= .milliseconds(800) && delay <= .milliseconds(1200))
            seen.insert(delay)
        }
        #expect(seen.count > 50, "jitter must spread retries")
    }
}

@Suite struct RetryAfterTests {
    @Test func deltaSeconds() {
        #expect(RetryAfter.parse("120") == .seconds(120))
        #expect(RetryAfter.parse(" 0 ") == .seconds(0))
    }

    @Test func httpDate() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == .seconds(30))
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:27:00 GMT", now: now) == .seconds(0), "a date in the past means now")
    }

    @Test func absurdValuesAreCappedNotTrapped() {
        #expect(RetryAfter.parse("10000000000000") == RetryAfter.maximum)
        #expect(RetryAfter.parse("9223372036854775807") == RetryAfter.maximum)
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT") == RetryAfter.maximum)
        // Backoff must not trap on a huge wait however it arrives.
        #expect(Backoff().delay(afterAttempt: 1, retryAfter: .seconds(Int64.max / 2)) == RetryAfter.maximum)
    }

    @Test(arguments: ["", "soon", "-5", "12.5"])
    func garbageIsIgnored(value: String) {
        #expect(RetryAfter.parse(value) == nil)
    }

    /// Found by Fuzz/FuzzProviderAnswers: Foundation's DateFormatter on Linux traps on a combining
    /// mark ("Incorrect range"), and a provider's header took the whole node down with it.
    @Test(arguments: ["s\u{059A}", "Wed\u{0301}, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT\u{0301}"])
    func datesWithCombiningMarksAreIgnoredNotTrapped(value: String) {
        #expect(RetryAfter.parse(value) == nil)
    }
}

import HeraldCore
import Testing

@testable import HeraldDelivery

@Suite struct APNSReasonDecisionTests {
    @Test func successIsDelivered() {
        #expect(APNSReason.decision(status: 200, reason: nil, retryAfter: nil) == .finish(.delivered))
    }

    @Test(arguments: [(410, "Unregistered"), (410, "ExpiredToken"), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic")])
    func deadTokens(status: Int, reason: String) {
        #expect(APNSReason.decision(status: status, reason: APNSReason(rawValue: reason), retryAfter: nil) == .finish(.deadToken(reason: reason)))
    }

    @Test(arguments: ["BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "DuplicateHeaders", "InvalidPushType", "PayloadEmpty", "PayloadTooLarge"])
    func requestErrorsAreRejectedWithoutRetry(reason: String) {
        #expect(APNSReason.decision(status: 400, reason: APNSReason(rawValue: reason), retryAfter: nil) == .finish(.rejected(reason: reason)))
    }

    @Test(arguments: ["BadTopic", "TopicDisallowed", "InvalidProviderToken", "Forbidden", "BadCertificate"])
    func configurationErrorsFail(reason: String) {
        #expect(APNSReason.decision(status: 403, reason: APNSReason(rawValue: reason), retryAfter: nil) == .finish(.failed(reason: reason)))
    }

    @Test func throttlingAndServerErrorsAreRetriedHonouringRetryAfter() {
        #expect(
            APNSReason.decision(status: 429, reason: .tooManyRequests, retryAfter: .seconds(7))
                == .retry(reason: "TooManyRequests", after: .seconds(7), then: .none)
        )
        #expect(APNSReason.decision(status: 500, reason: .internalServerError, retryAfter: nil) == .retry(reason: "InternalServerError", after: nil, then: .none))
        #expect(APNSReason.decision(status: 503, reason: nil, retryAfter: nil) == .retry(reason: "HTTP 503", after: nil, then: .none))
    }

    @Test func connectionReasonsRetryOnANewConnection() {
        for reason in [APNSReason.shutdown, .idleTimeout, .unrelatedKeyIdInToken, .tooManyProviderTokenUpdates] {
            #expect(APNSReason.decision(status: 503, reason: reason, retryAfter: nil) == .retry(reason: reason.rawValue, after: nil, then: .newConnection))
        }
    }

    @Test func expiredProviderTokenRefreshesTheToken() {
        #expect(APNSReason.decision(status: 403, reason: .expiredProviderToken, retryAfter: nil) == .retry(reason: "ExpiredProviderToken", after: nil, then: .refreshToken))
    }

    @Test func unknownReasonFailsWithoutRetry() {
        #expect(APNSReason.decision(status: 400, reason: APNSReason(rawValue: "SomethingNew"), retryAfter: nil) == .finish(.failed(reason: "SomethingNew")))
    }
}

public import CoreMetrics
import HeraldCore
import NIOConcurrencyHelpers

/// gorush's counters, for `GET /api/stat/app` and gorush's metric names (gorush-api.md §5–6).
/// Per node, kept in memory like gorush's default store.
public final class GorushStatistics: Sendable {
    private struct Counts {
        var totalCount = 0
        var iosSuccess = 0
        var iosError = 0
        var androidSuccess = 0
        var androidError = 0
        var webPushSuccess = 0
        var webPushError = 0
    }

    private let counts = NIOLockedValueBox(Counts())
    private let totalPushCount: Counter
    private let iosSuccess: Counter
    private let iosError: Counter
    private let androidSuccess: Counter
    private let androidFail: Counter
    private let webPushSuccess: Counter
    private let webPushError: Counter
    private let rateLimitedRequests: Counter

    public init(factory: any MetricsFactory) {
        self.totalPushCount = Counter(label: "gorush_total_push_count", factory: factory)
        self.iosSuccess = Counter(label: "gorush_ios_success", factory: factory)
        self.iosError = Counter(label: "gorush_ios_error", factory: factory)
        self.androidSuccess = Counter(label: "gorush_android_success", factory: factory)
        self.androidFail = Counter(label: "gorush_android_fail", factory: factory)
        self.webPushSuccess = Counter(label: "herald_gorush_webpush_success_total", factory: factory)
        self.webPushError = Counter(label: "herald_gorush_webpush_error_total", factory: factory)
        self.rateLimitedRequests = Counter(label: "herald_gorush_rate_limited_total", factory: factory)
    }

    /// A request refused by `gorush.rate-limit`.
    func rateLimited() {
        self.rateLimitedRequests.increment()
    }

    func accepted(counts: Int) {
        self.counts.withLockedValue { $0.totalCount += counts }
        self.totalPushCount.increment(by: counts)
    }

    func pushed(platform: String, succeeded: Bool) {
        self.counts.withLockedValue { counts in
            switch (platform, succeeded) {
            case ("ios", true): counts.iosSuccess += 1
            case ("ios", false): counts.iosError += 1
            case ("webpush", true): counts.webPushSuccess += 1
            case ("webpush", false): counts.webPushError += 1
            case (_, true): counts.androidSuccess += 1
            case (_, false): counts.androidError += 1
            }
        }
        switch (platform, succeeded) {
        case ("ios", true): self.iosSuccess.increment()
        case ("ios", false): self.iosError.increment()
        case ("webpush", true): self.webPushSuccess.increment()
        case ("webpush", false): self.webPushError.increment()
        case (_, true): self.androidSuccess.increment()
        case (_, false): self.androidFail.increment()
        }
    }

    /// The body of `GET /api/stat/app`. Herald has no worker queue of gorush's kind, so the task
    /// and worker counters stay 0.
    var json: JSONValue {
        let counts = self.counts.withLockedValue { $0 }
        func platform(_ success: Int, _ error: Int) -> JSONValue {
            .object([("push_success", .number(Double(success))), ("push_error", .number(Double(error)))])
        }
        return .object([
            ("version", .string("herald")),
            ("busy_workers", .number(0)),
            ("success_tasks", .number(0)),
            ("failure_tasks", .number(0)),
            ("submitted_tasks", .number(0)),
            ("total_count", .number(Double(counts.totalCount))),
            ("ios", platform(counts.iosSuccess, counts.iosError)),
            ("android", platform(counts.androidSuccess, counts.androidError)),
            ("huawei", platform(0, 0)),
            // Herald's: gorush has no Web Push platform.
            ("webpush", platform(counts.webPushSuccess, counts.webPushError)),
        ])
    }
}

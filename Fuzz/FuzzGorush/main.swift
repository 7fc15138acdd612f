import FuzzSupport
import HeraldCore
import HeraldGorush

// gorush `POST /api/push` bodies: decoded and checked against the limits as the route does, then
// turned into the APNs and FCM notifications the route would send. Each payload Herald writes
// must be JSON the provider can read.

enum Fixture {
    /// Small limits, so inputs the fuzzer reaches meet every refusal.
    static let limits: GorushRequestLimits = {
        var limits = GorushRequestLimits()
        limits.notifications = 4
        limits.tokens = 6
        limits.targets = 10
        return limits
    }()
}

runFuzzer { buffer in
    let notifications: [GorushNotification]
    do {
        notifications = try GorushPushRequest.decode(Array(buffer), limits: Fixture.limits)
    } catch {
        return
    }
    require((1...Fixture.limits.notifications).contains(notifications.count), "decode passed \(notifications.count) entries")
    for entry in notifications {
        for push in entry.apnsNotifications() {
            require(isJSON(push.payload), "an APNs payload is not JSON: \(String(decoding: push.payload, as: UTF8.self))")
        }
        if entry.androidProblem == nil {
            for push in entry.fcmNotifications() {
                require(isJSON(push.payload), "an FCM message is not JSON: \(String(decoding: push.payload, as: UTF8.self))")
            }
        }
    }
}

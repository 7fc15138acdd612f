import HeraldCore

/// The body of gorush's `POST /api/push`, field for field (gorush-api.md §2). Every field is
/// optional, as in gorush; a field of the wrong JSON type fails the whole request, as in gorush.
/// Read by `GorushPushRequest.decode`.
public struct GorushPushRequest: Sendable {
    var notifications: [GorushNotification]?
}

public struct GorushNotification: Sendable {
    // Common
    var notifID: String?
    var tokens: [String]?
    var to: String?
    var platform: Int?
    var message: String?
    var title: String?
    var image: String?
    var topic: String?
    var priority: String?
    var contentAvailable: Bool?
    var mutableContent: Bool?
    var sound: JSONValue?
    var data: [String: JSONValue]?
    var retry: Int?
    // iOS
    var expiration: Int64?
    var apnsID: String?
    var collapseID: String?
    var pushType: String?
    var badge: Int?
    var category: String?
    var threadID: String?
    var urlArgs: [String]?
    var alert: [String: JSONValue]?
    var production: Bool?
    var development: Bool?
    var name: String?
    var volume: Double?
    var interruptionLevel: String?
    var contentState: [String: JSONValue]?
    var staleDate: Int64?
    var dismissalDate: Int64?
    var event: String?
    var timestamp: Int64?
    var attributesType: String?
    var attributes: [String: JSONValue]?
    var relevanceScore: Double?
    // Android (FCM HTTP v1 objects, passed through; gorush-api.md §2.5)
    var fcmNotification: JSONValue?
    var android: JSONValue?
    var apns: JSONValue?
    var webpush: JSONValue?
    var fcmOptions: JSONValue?
    var condition: String?
    /// Legacy FCM field, mapped to `android.ttl`.
    var timeToLive: Int64?

    /// gorush's platform numbers, and Herald's Web Push (4), which gorush lacks.
    enum PlatformNumber: Int {
        case ios = 1
        case android = 2
        case huawei = 3
        case webPush = 4

        /// The name gorush's logs and counters give the platform.
        var name: String {
            switch self {
            case .ios: "ios"
            case .android: "android"
            case .huawei: "huawei"
            case .webPush: "webpush"
            }
        }
    }

    /// The platforms Herald delivers to; gorush drops entries of any other platform silently.
    var enabledPlatform: PlatformNumber? {
        switch self.platform.flatMap(PlatformNumber.init(rawValue:)) {
        case .ios: .ios
        case .android: .android
        case .webPush: .webPush
        default: nil
        }
    }

    /// The target count gorush reports for this entry: one per token, plus one for any non-empty
    /// topic, even on iOS where the topic is only the APNs topic (gorush-api.md §3). `to` is not
    /// counted: gorush appends it to the tokens later, in its worker. A Web Push entry's topic
    /// names its app and is no target.
    var targetCount: Int {
        (self.tokens?.count ?? 0) + ((self.topic ?? "").isEmpty || self.enabledPlatform == .webPush ? 0 : 1)
    }

    /// gorush's `priority` in Herald's terms, the same for every platform: `high` wakes the
    /// device, `normal` is power-considerate, anything else leaves the provider's default.
    var pushPriority: PushNotification.Priority? {
        switch self.priority {
        case "high": .immediate
        case "normal": .powerConsiderate
        default: nil
        }
    }

    /// The tokens an Android entry is sent to: `tokens`, then `to` (gorush appends it).
    var androidTokens: [String] {
        var tokens = self.tokens ?? []
        if let to = self.to, !to.isEmpty { tokens.append(to) }
        return tokens
    }
}

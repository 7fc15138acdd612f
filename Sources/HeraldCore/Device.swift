/// Where a push goes: the provider, the device token and the routing facts the provider needs.
public struct Device: Hashable, Sendable {
    public var platform: Platform
    /// The provider's device token as the client sent it (APNs: hex; FCM: registration token).
    public var token: String
    /// The APNs topic (bundle id, possibly with a suffix such as `.voip`), when the client names one.
    public var topic: String?
    /// The configured app this device belongs to; `nil` means the default app.
    public var app: String?

    public init(platform: Platform, token: String, topic: String? = nil, app: String? = nil) {
        self.platform = platform
        self.token = token
        self.topic = topic
        self.app = app
    }
}

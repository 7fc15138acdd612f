public import HeraldConfig

/// The Aries front door's section, `aries.*`: which apps deliver to wallets, and what their
/// pushes look like.
public struct AriesConfiguration: ConfigurationSectionValue {
    public enum Style: String, Sendable, Hashable, CaseIterable {
        /// A visible "new message" alert.
        case alert
        /// A silent wake-up (`content-available`), for wallets that fetch and notify themselves.
        case background
    }

    /// The app whose APNs delivers to wallets that set device info with
    /// `push-notifications-apns`.
    public var apnsApp: String?
    /// The app whose FCM delivers to wallets that set it with `push-notifications-fcm`.
    public var fcmApp: String?
    public var style = Style.alert
    /// The alert text of `alert` pushes.
    public var alertText = "New message"
    /// How long a `message_id` is remembered, so a repeated notify pushes once.
    public var deduplicationWindow: Duration = .seconds(86_400)
    /// Herald's own Ed25519 key, for wallets that send it packed DIDComm envelopes directly.
    public var identityKeyFile: String?
    /// Envelopes a minute one client address may post to `/aries/v1/didcomm`; 0 is no limit.
    public var clientRateLimit = 120

    public init() {}

    public static let section = "aries"

    public var isEnabled: Bool { self.apnsApp != nil || self.fcmApp != nil }

    public static let keys: [ConfigurationKey] = [
        ConfigurationKey(
            "aries.apns-app",
            .string,
            default: nil,
            help: "The app whose APNs credentials push to wallets registered through `push-notifications-apns` (RFC 0699); its topic is the wallet's bundle id."
        ),
        ConfigurationKey(
            "aries.fcm-app",
            .string,
            default: nil,
            help: "The app whose FCM credentials push to wallets registered through `push-notifications-fcm` (RFC 0734)."
        ),
        ConfigurationKey(
            "aries.style",
            .oneOf(Style.allCases.map(\.rawValue)),
            default: "alert",
            help: "`alert`: a visible notification (`aries.alert-text`; FCM priority high); `background`: a silent wake-up (APNs `content-available`, priority 5; FCM normal), for wallets that fetch and show messages themselves."
        ),
        ConfigurationKey("aries.alert-text", .string, default: "New message", help: "The text of `alert` pushes; it never carries message content."),
        ConfigurationKey(
            "aries.identity-key-file",
            .string,
            default: nil,
            help: "Herald's own Ed25519 key (`herald keygen --kind didcomm`): with it, wallets reach `POST /aries/v1/didcomm` with DIDComm v1 packed envelopes (RFC 0019) addressed to its verkey, without a mediator."
        ),
        ConfigurationKey(
            "aries.dedup-window",
            .duration,
            default: "24h",
            help: "How long a notified `message_id` is remembered: a mediator repeating a notify within it pushes once."
        ),
        ConfigurationKey(
            "aries.client-rate-limit",
            .integer(0...1_000_000),
            default: "120",
            help: "Envelopes a minute one client IP address may post to `POST /aries/v1/didcomm`, in bursts of as many; beyond it 429 with `Retry-After` before the envelope is opened, counted in `herald_aries_rate_limited_total`. A mediator relaying many wallets from one address needs more. 0 is no limit. Counted per node."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.apnsApp = try section.string("apns-app")
        self.fcmApp = try section.string("fcm-app")
        self.style = try section.choice("style", as: Style.self)
        self.alertText = try section.string("alert-text") ?? "New message"
        self.deduplicationWindow = try section.duration("dedup-window", atLeast: .seconds(1))
        self.identityKeyFile = try section.nonEmptyString("identity-key-file", expecting: "a file path")
        self.clientRateLimit = try section.integer("client-rate-limit")
    }
}

public import HeraldConfig
public import HeraldCore

/// An app's Web Push section, `apps.<app>.webpush.*`: the application server's VAPID key and
/// which push services its subscriptions may name.
public struct WebPushAppConfiguration: ProviderConfiguration {
    /// The VAPID private key: PEM, or the base64url scalar `web-push generate-vapid-keys` prints.
    public var vapidKeyFile: String?
    /// `sub` of the VAPID token: how a push service reaches the operator.
    public var vapidSubject: String?
    public var allowedEndpoints: [Glob] = Self.browserPushServices
    public var allowedAddresses: [AddressRange] = []
    /// `TTL` of pushes that name no expiry, in seconds.
    public var ttl: Int64 = 86_400
    public var caFile: String?
    public var connectionsPerHost = 4
    public var hosts = 16

    /// The push services of Chrome and Android (FCM), Firefox (autopush), Safari and Edge: the
    /// endpoints browsers hand out. UnifiedPush distributors (ntfy, NextPush) are the operator's
    /// to add.
    public static let browserPushServices = ["fcm.googleapis.com", "updates.push.services.mozilla.com", "*.push.apple.com", "*.notify.windows.com"]
        .map { Glob($0, caseInsensitive: true) }

    public init() {}

    public static let section = "webpush"

    public var isConfigured: Bool { self.vapidKeyFile != nil || self.vapidSubject != nil }

    public var descriptors: Int { self.connectionsPerHost * self.hosts }

    public var summary: String {
        "Web Push to \(self.allowedEndpoints.map(\.pattern).joined(separator: ", ")), VAPID key \(self.vapidKeyFile ?? "?")"
    }

    public static let keys: [ConfigurationKey] = [
        ConfigurationKey(
            "apps.<app>.webpush.vapid-key-file",
            .string,
            default: nil,
            help: "The application server's VAPID private key (RFC 8292, P-256): PEM (`openssl ecparam -name prime256v1 -genkey`, py-vapid's `vapid --gen`) or the base64url private key `web-push generate-vapid-keys` prints. Its public half is the `applicationServerKey` clients subscribe with."
        ),
        ConfigurationKey(
            "apps.<app>.webpush.vapid-subject",
            .string,
            default: nil,
            help: "`sub` of the VAPID token, how a push service contacts the operator: `mailto:ops@example.org` or an `https:` URL."
        ),
        ConfigurationKey(
            "apps.<app>.webpush.allowed-endpoints",
            .list,
            default: "fcm.googleapis.com,updates.push.services.mozilla.com,*.push.apple.com,*.notify.windows.com",
            help: "Push services subscriptions may name, as `host` or `host:port` globs (`*`, `?`; case-insensitive; the port only when not 443), as Sygnal's `allowed_endpoints`. The default is the browsers' push services; add a UnifiedPush distributor's host (`ntfy.example.org`), or `*` for any public host. Others are refused as `endpoint_refused`."
        ),
        ConfigurationKey(
            "apps.<app>.webpush.allowed-addresses",
            .list,
            default: nil,
            help: "Networks (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`) an endpoint's host may resolve to although they are not public. Without them an endpoint resolving only to loopback, private, link-local or other special addresses is refused: a client must not make Herald post into the operator's network."
        ),
        ConfigurationKey(
            "apps.<app>.webpush.ttl",
            .duration,
            default: "24h",
            help: "`TTL` of pushes that name no expiry: how long the push service keeps a message for a device that is offline."
        ),
        ConfigurationKey(
            "apps.<app>.webpush.ca-file",
            .string,
            default: nil,
            help: "PEM certificates to trust instead of the system's, for a push service with a private CA or a test peer."
        ),
        ConfigurationKey(
            "apps.<app>.webpush.connections-per-host",
            .integer(1...64),
            default: "4",
            help: "Connections to one push service host (HTTP/1.1; one HTTP/2 connection carries many pushes)."
        ),
        ConfigurationKey(
            "apps.<app>.webpush.hosts",
            .integer(1...1024),
            default: "16",
            help: "Push service hosts connected at once; the least recently used one is closed past it."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.vapidKeyFile = try section.rawString("vapid-key-file")
        self.vapidSubject = try section.string("vapid-subject")
        if let subject = self.vapidSubject, !Self.isContact(subject) {
            throw section.error("vapid-subject", "'\(subject)' is not a mailto: or https: URL (RFC 8292 §2.1)")
        }
        if section.isSet("allowed-endpoints") {
            self.allowedEndpoints = try section.list("allowed-endpoints").map { Glob($0.lowercased(), caseInsensitive: true) }
            guard !self.allowedEndpoints.isEmpty else { throw section.error("allowed-endpoints", "an empty list allows no push service") }
        }
        self.allowedAddresses = try section.list("allowed-addresses").map { item in
            guard let range = AddressRange(item) else { throw section.error("allowed-addresses", "'\(item)' is not an address or a network such as 10.0.0.0/8") }
            return range
        }
        let ttl = try section.duration("ttl")
        guard ttl <= .seconds(WebPushRequest.maximumTTL) else { throw section.error("ttl", "must be at most 28d, the longest push services keep a message") }
        self.ttl = ttl.components.seconds
        self.caFile = try section.string("ca-file")
        self.connectionsPerHost = try section.integer("connections-per-host")
        self.hosts = try section.integer("hosts")
        if self.isConfigured {
            guard self.vapidKeyFile?.isEmpty == false else {
                throw ConfigurationError(.invalidValue, "configuration key \(section.prefix).vapid-key-file is required for the app's Web Push credentials")
            }
            guard self.vapidSubject != nil else {
                throw ConfigurationError(.invalidValue, "configuration key \(section.prefix).vapid-subject is required: push services want a contact (mailto: or https:)")
            }
        }
    }

    static func isContact(_ subject: String) -> Bool {
        let lower = subject.lowercased()
        if lower.hasPrefix("mailto:") { return subject.count > 7 && subject.contains("@") }
        return lower.hasPrefix("https://") && subject.count > 8
    }
}

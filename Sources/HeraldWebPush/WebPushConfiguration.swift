public import HeraldConfig

/// The Web Push relay's section, `webpush.*`: which configured apps the relay paths reach, who
/// may push through them, and the limits.
public struct WebPushConfiguration: ConfigurationSectionValue {
    /// What happens to a push whose body does not fit the provider's payload (webpush-relay.md §7).
    public enum OversizePolicy: String, Sendable, Hashable, CaseIterable {
        /// Answer 201 and drop it, counted: the sender keeps the subscription (option B).
        case drop
        /// Answer 201 and send the alert without `p`, marked `"oversize":1`, for apps that show
        /// something of their own (option C).
        case reduced
    }

    /// The app `/relay-to/production/…` delivers through.
    public var productionApp: String?
    /// The app `/relay-to/<any other environment>/…` delivers through.
    public var sandboxApp: String?
    /// More relays on their own path prefixes: `/<name>/relay-to/…`.
    public var relays: [RelayDefinition] = []
    /// Apps reachable as `/relay-to-fcm/<app>/<registration token>`.
    public var fcmApps: [String] = []
    /// VAPID public keys allowed to push; empty leaves VAPID unchecked, as toot-relay does.
    public var vapidKeys: [VAPIDKeyRule] = []
    /// The origin (`https://push.example.com`) the VAPID `aud` claim must name: the relay's public
    /// origin, which the request's `Host` need not be behind a proxy. Required with `vapidKeys`.
    public var vapidAudience: String?
    /// Seconds a push is kept at most, whatever `TTL` the sender asks for.
    public var maximumTTL = 2_419_200
    /// Pushes per minute one subscription may send (bursts up to the same number); 0 is no limit.
    public var rateLimit = 120
    /// Pushes per minute one VAPID key may send over all its subscriptions; 0 is no limit.
    public var vapidRateLimit = 0
    public var oversize = OversizePolicy.drop
    /// How long a token the provider declared dead is answered 410 without asking it again.
    public var deadTokenWindow: Duration = .seconds(30 * 86_400)
    /// How long one push may take over all its provider attempts before the sender is answered
    /// 503: Mastodon gives up on a request after about 10 seconds and retries.
    public var deliveryDeadline: Duration = .seconds(8)

    public init() {}

    public static let section = "webpush"

    /// Whether any relay path is configured.
    public var isEnabled: Bool {
        self.productionApp != nil || self.sandboxApp != nil || !self.relays.isEmpty || !self.fcmApps.isEmpty
    }

    /// Every relay, the default one (`/relay-to`) first when configured.
    public var allRelays: [RelayDefinition] {
        var all: [RelayDefinition] = []
        if self.productionApp != nil || self.sandboxApp != nil {
            all.append(RelayDefinition(name: RelayDefinition.defaultName, productionApp: self.productionApp, sandboxApp: self.sandboxApp))
        }
        return all + self.relays
    }

    public static let keys: [ConfigurationKey] = [
        ConfigurationKey(
            "webpush.production-app",
            .string,
            default: nil,
            help: "The app (its APNs credentials and topic) that `POST /relay-to/production/<device token>[/<extra>]` delivers through, toot-relay style. Its `apns.environment` should be `production`."
        ),
        ConfigurationKey(
            "webpush.sandbox-app",
            .string,
            default: nil,
            help: "The app that `/relay-to/<any other environment>/…` (toot-relay's `development`) delivers through, usually with `apns.environment: sandbox`. Unset, such paths are answered 404."
        ),
        ConfigurationKey(
            "webpush.relays",
            .list,
            default: nil,
            help: "More relay apps on one node, each `<name>=<production app>[/<sandbox app>]`, served at `/<name>/relay-to/<environment>/<device token>[/<extra>]`."
        ),
        ConfigurationKey(
            "webpush.fcm-apps",
            .list,
            default: nil,
            help: "Apps reachable through `POST /relay-to-fcm/<app>/<registration token>[/<extra>]`, which carries the same fields as FCM `data`."
        ),
        ConfigurationKey(
            "webpush.vapid-keys",
            .list,
            default: nil,
            help: "VAPID public keys (base64url, 65-byte P-256) allowed to push, each for every relay or as `<relay name or FCM app>=<key>` for one (`default` is `/relay-to`). A relay with keys refuses a push without VAPID (401) or with a bad token or another key (403). Needs `webpush.vapid-audience`."
        ),
        ConfigurationKey(
            "webpush.vapid-audience",
            .string,
            default: nil,
            help: "The relay's public origin (`https://push.example.com`, no path), which a VAPID token's `aud` must name: the scheme, host and port of the endpoints apps register. Required with `webpush.vapid-keys`."
        ),
        ConfigurationKey(
            "webpush.maximum-ttl",
            .integer(0...31_536_000),
            default: "2419200",
            help: "Seconds a push is kept at most; a larger `TTL` is lowered to it and the answer's `TTL` says so."
        ),
        ConfigurationKey(
            "webpush.rate-limit",
            .integer(0...1_000_000),
            default: "120",
            help: "Pushes per minute one subscription (relay and device token) may send, with bursts of as many; beyond it the answer is 429 with `Retry-After`. 0 is no limit. Counted per node."
        ),
        ConfigurationKey(
            "webpush.vapid-rate-limit",
            .integer(0...100_000_000),
            default: "0",
            help: "Pushes per minute one VAPID key (one application server, across all its subscriptions) may send, with bursts of as many; beyond it the answer is 429 with `Retry-After`. Needs `webpush.vapid-keys`. 0 is no limit. Counted per node."
        ),
        ConfigurationKey(
            "webpush.oversize",
            .oneOf(OversizePolicy.allCases.map(\.rawValue)),
            default: "drop",
            help: "A body too large for the provider's 4 KB payload once encoded: `drop` answers 201 and counts it (RFC 8030 forbids 413 up to 4096 bytes, and Mastodon deletes the subscription on one); `reduced` sends the alert without `p`, marked `\"oversize\":1`, for apps that handle it."
        ),
        ConfigurationKey(
            "webpush.delivery-deadline",
            .duration,
            default: "8s",
            help: "How long one push may take over all its APNs or FCM attempts before the sender gets 503 with `Retry-After` (Mastodon waits about 10 s for an answer, then retries the push). At most the provider's own 60 s."
        ),
        ConfigurationKey(
            "webpush.dead-token-window",
            .duration,
            default: "720h",
            help: "How long a device token APNs or FCM declared dead is answered 410 at once, without asking the provider again."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.deliveryDeadline = try section.duration("delivery-deadline", atLeast: .milliseconds(100))
        self.productionApp = try section.string("production-app")
        self.sandboxApp = try section.string("sandbox-app")
        self.relays = try section.list("relays").map { item in
            guard let relay = RelayDefinition(parsing: item) else {
                throw section.error("relays", "'\(item)' is not <name>=<production app>[/<sandbox app>] (name: lower-case letters, digits and dashes)")
            }
            return relay
        }
        let names = self.allRelays.map(\.name)
        if let repeated = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw section.error("relays", "relay '\(repeated)' is defined twice")
        }
        self.fcmApps = try section.list("fcm-apps")
        self.vapidKeys = try section.list("vapid-keys").map { item in
            guard let rule = VAPIDKeyRule(parsing: item) else {
                throw section.error("vapid-keys", "'\(item.prefix(100))' is not a base64url P-256 public key (65 bytes), alone or after <relay or app>=")
            }
            return rule
        }
        if let clash = self.fcmApps.first(where: { names.contains($0) }) {
            throw section.error("fcm-apps", "'\(clash)' is also a relay's name; VAPID keys are scoped by these names, so they must differ")
        }
        let scopes = Set(names + self.fcmApps)
        if let stray = self.vapidKeys.compactMap(\.scope).first(where: { !scopes.contains($0) }) {
            throw section.error("vapid-keys", "'\(stray)' is neither a relay (\(names.joined(separator: ", "))) nor an FCM app of webpush.fcm-apps")
        }
        self.vapidAudience = try section.string("vapid-audience")
        if let audience = self.vapidAudience, !Self.isOrigin(audience) {
            throw section.error("vapid-audience", "'\(audience)' is not an origin: https://host or http://host:port, without a path")
        }
        if !self.vapidKeys.isEmpty, self.vapidAudience == nil {
            throw section.error(
                "vapid-audience",
                "is required with webpush.vapid-keys: the relay's public origin, which tokens name as aud (the Host header a proxy passes on cannot be trusted for it)"
            )
        }
        self.maximumTTL = try section.integer("maximum-ttl")
        self.rateLimit = try section.integer("rate-limit")
        self.vapidRateLimit = try section.integer("vapid-rate-limit")
        self.oversize = try section.choice("oversize", as: OversizePolicy.self)
        self.deadTokenWindow = try section.duration("dead-token-window", atLeast: .seconds(1))
    }
}

extension WebPushConfiguration {
    /// `scheme://host[:port]`, with an optional trailing slash and nothing else.
    static func isOrigin(_ text: String) -> Bool {
        var rest: Substring
        if text.hasPrefix("https://") {
            rest = text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            rest = text.dropFirst(7)
        } else {
            return false
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        return !rest.isEmpty && !rest.contains { "/?#@ ".contains($0) }
    }
}

/// One APNs relay: its path prefix and the apps its two environments deliver through.
public struct RelayDefinition: Sendable, Hashable {
    /// The relay served at `/relay-to` itself.
    public static let defaultName = "default"

    public var name: String
    public var productionApp: String?
    public var sandboxApp: String?

    public init(name: String, productionApp: String?, sandboxApp: String?) {
        self.name = name
        self.productionApp = productionApp
        self.sandboxApp = sandboxApp
    }

    /// `<name>=<production app>[/<sandbox app>]`.
    init?(parsing item: String) {
        let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
        guard parts.count == 2, ConfigurationKey.isValidAppID(parts[0]), parts[0] != Self.defaultName else { return nil }
        let apps = parts[1].split(separator: "/", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard (1...2).contains(apps.count), apps.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(name: parts[0], productionApp: apps[0], sandboxApp: apps.count == 2 ? apps[1] : nil)
    }

    /// The path prefix before `/<environment>/<token>`.
    public var pathPrefix: String { self.name == Self.defaultName ? "/relay-to" : "/\(self.name)/relay-to" }

    /// The app a path's environment reaches: `production` the production app, anything else the
    /// sandbox app, as both reference relays choose the APNs host.
    public func app(environment: String) -> String? {
        environment == "production" ? self.productionApp : self.sandboxApp
    }
}

/// One entry of `webpush.vapid-keys`: a key, for every relay or for one.
public struct VAPIDKeyRule: Sendable, Hashable {
    /// The relay name or FCM app it is for; `nil` for all.
    public var scope: String?
    /// The uncompressed P-256 public key.
    public var key: [UInt8]

    public init(scope: String?, key: [UInt8]) {
        self.scope = scope
        self.key = key
    }

    init?(parsing item: String) {
        let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
        let (scope, text) = parts.count == 2 && ConfigurationKey.isValidAppID(parts[0]) ? (parts[0], parts[1]) : (nil, item.trimmingSpaces)
        guard let key = RelayMessage.base64URL(text), key.count == 65, key.first == 4 else { return nil }
        self.init(scope: scope, key: key)
    }
}

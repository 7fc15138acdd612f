public import HeraldConfig

/// The silent-sync front door's section, `silent.*`: which apps `/v3/register` registers to, and
/// how silent pushes are paced.
public struct SilentConfiguration: ConfigurationSectionValue {
    public enum FCMPriority: String, Sendable, Hashable, CaseIterable {
        case normal
        case high
    }

    /// The app `POST /v3/register` registers to: `IOS` devices reach its APNs (production),
    /// `AND` devices its FCM.
    public var app: String?
    /// The app `IOD` (iOS development) devices reach, with `apns.environment: sandbox`.
    public var sandboxApp: String?
    /// More services on one node, each at `/<name>/v3/register`.
    public var services: [SilentService] = []
    /// Silent pushes one device may get an hour; 0 is no limit.
    public var rateLimit = 3
    /// How long a silent push is kept for an unreachable device.
    public var timeToLive: Duration = .seconds(900)
    public var fcmPriority = FCMPriority.normal
    /// APNs collapse id and FCM collapse key: one pending sync per device is enough.
    public var collapseKey: String? = "herald-sync"
    /// Pushes a second a broadcast sends at most.
    public var broadcastRate = 20_000
    /// Caps on broadcasts and what each holds.
    public var broadcastLimits = SilentBroadcasts.Limits()
    /// Registrations a minute one client address may send; 0 is no limit.
    public var clientRateLimit = 120

    public init() {}

    public static let section = "silent"

    public var isEnabled: Bool { self.app != nil || !self.services.isEmpty }

    /// Every service, the default one (`/v3/register`) first when configured.
    public var allServices: [SilentService] {
        (self.app.map { [SilentService(name: SilentService.defaultName, app: $0, sandboxApp: self.sandboxApp)] } ?? []) + self.services
    }

    public static let keys: [ConfigurationKey] = [
        ConfigurationKey(
            "silent.app",
            .string,
            default: nil,
            help: "The app `POST /v3/register` (and `/v1/register`, NotifyMe's API) registers devices to: `IOS` devices reach its APNs, which must be `production`, `AND` devices its FCM."
        ),
        ConfigurationKey(
            "silent.sandbox-app",
            .string,
            default: nil,
            help: "The app `IOD` (iOS development build) devices reach, with `apns.environment: sandbox`. Unset, `IOD` registrations are refused."
        ),
        ConfigurationKey(
            "silent.services",
            .list,
            default: nil,
            help: "More silent-sync services on one node, each `<name>=<app>[/<sandbox app>]`, registering at `/<name>/v3/register`; sync and broadcast requests name the service."
        ),
        ConfigurationKey(
            "silent.rate-limit",
            .integer(0...3600),
            default: "3",
            help: "Silent pushes one device may get an hour (Apple advises two or three); more are counted as throttled and not sent. 0 is no limit. Counted per node."
        ),
        ConfigurationKey(
            "silent.time-to-live",
            .duration,
            default: "15m",
            help: "How long APNs and FCM keep a silent push for a device that is not reachable; a stale wake-up is useless."
        ),
        ConfigurationKey(
            "silent.fcm-priority",
            .oneOf(FCMPriority.allCases.map(\.rawValue)),
            default: "normal",
            help: "FCM `android.priority` of silent pushes: `normal` (may wait out Doze) or `high` (FCM deprioritises apps whose high-priority messages show nothing)."
        ),
        ConfigurationKey(
            "silent.collapse-key",
            .string,
            default: "herald-sync",
            help: "APNs `apns-collapse-id` and FCM `collapse_key` of silent pushes, so a device keeps one pending sync; empty sends none."
        ),
        ConfigurationKey(
            "silent.broadcast-rate",
            .integer(1...1_000_000),
            default: "20000",
            help: "Pushes a second a broadcast sends at most, across its devices."
        ),
        ConfigurationKey(
            "silent.max-running-broadcasts",
            .integer(1...1000),
            default: "4",
            help: "Broadcasts running on this node at once, of every service; another is refused with 429 and `Retry-After` until one ends. Each holds up to `silent.broadcast-window` pushes in memory."
        ),
        ConfigurationKey(
            "silent.max-running-broadcasts-per-service",
            .integer(1...1000),
            default: "1",
            help: "Broadcasts of one service running on this node at once; another is refused with 429 and `Retry-After` (a second walk of the same devices only repeats the first)."
        ),
        ConfigurationKey(
            "silent.broadcast-window",
            .integer(1...65_536),
            default: "2048",
            help: "Pushes of one broadcast awaiting their answers at once (about 5 KB of memory each): with `silent.max-running-broadcasts` it bounds what broadcasts hold."
        ),
        ConfigurationKey(
            "silent.broadcast-retention",
            .duration,
            default: "7d",
            help: "How long a finished (or cancelled) broadcast stays readable at `GET /silent/v1/broadcasts/<id>`; it is kept in the store only, then dropped."
        ),
        ConfigurationKey(
            "silent.client-rate-limit",
            .integer(0...1_000_000),
            default: "120",
            help: "Registrations a minute (`POST /v3/register`, `/v1/register`) one client IP address may send, in bursts of as many; beyond it 429 with `Retry-After`, counted in `herald_silent_rate_limited_total`. Devices behind one NAT share an address. 0 is no limit. Counted per node."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.app = try section.string("app")
        self.sandboxApp = try section.string("sandbox-app")
        if self.sandboxApp != nil, self.app == nil {
            throw section.error("sandbox-app", "needs silent.app: the sandbox app serves the same /v3/register")
        }
        self.services = try section.list("services").map { item in
            guard let service = SilentService(parsing: item) else {
                throw section.error("services", "'\(item)' is not <name>=<app>[/<sandbox app>] (name: at most 63 lower-case letters, digits and dashes)")
            }
            return service
        }
        let names = self.allServices.map(\.name)
        if let repeated = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw section.error("services", "service '\(repeated)' is defined twice")
        }
        self.rateLimit = try section.integer("rate-limit")
        self.timeToLive = try section.duration("time-to-live")
        self.fcmPriority = try section.choice("fcm-priority", as: FCMPriority.self)
        self.collapseKey = try section.string("collapse-key")
        if let key = self.collapseKey, key.utf8.count > 64 || !key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw section.error("collapse-key", "must be at most 64 printable ASCII characters (APNs' limit)")
        }
        self.broadcastRate = try section.integer("broadcast-rate")
        self.broadcastLimits.running = try section.integer("max-running-broadcasts")
        self.broadcastLimits.runningPerService = try section.integer("max-running-broadcasts-per-service")
        self.broadcastLimits.window = try section.integer("broadcast-window")
        self.broadcastLimits.retention = try section.duration("broadcast-retention", atLeast: .seconds(1))
        self.clientRateLimit = try section.integer("client-rate-limit")
    }
}

/// One silent-sync service: its name (the path prefix and the name sync requests use) and apps.
public struct SilentService: Sendable, Hashable {
    /// The service served at `/v3/register` itself.
    public static let defaultName = "default"

    public var name: String
    /// `IOS` and `AND` devices.
    public var app: String
    /// `IOD` devices.
    public var sandboxApp: String?

    public init(name: String, app: String, sandboxApp: String?) {
        self.name = name
        self.app = app
        self.sandboxApp = sandboxApp
    }

    init?(parsing item: String) {
        let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
        // At most 63 bytes: the name and a 33-byte hash make the registrations' key subject.
        guard parts.count == 2, ConfigurationKey.isValidAppID(parts[0]), parts[0].utf8.count <= 63, parts[0] != Self.defaultName else { return nil }
        let apps = parts[1].split(separator: "/", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard (1...2).contains(apps.count), apps.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(name: parts[0], app: apps[0], sandboxApp: apps.count == 2 ? apps[1] : nil)
    }

    /// The registration paths' prefix: empty for the default service.
    public var pathPrefix: String { self.name == Self.defaultName ? "" : "/\(self.name)" }
}

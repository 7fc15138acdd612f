public import HeraldStore
public import Logging

/// Everything `herald serve` is configured with, parsed and validated.
public struct HeraldConfiguration: Sendable, Hashable {
    public struct Server: Sendable, Hashable {
        public var host: String = "127.0.0.1"
        public var port: Int = 8080
        /// How long graceful shutdown may take before what is left is cancelled.
        public var shutdownTimeout: Duration = .seconds(30)
    }

    public struct Store: Sendable, Hashable {
        public var path: String = "./herald-data"
        public var environment = LMDBEnvironment.Configuration()
    }

    public struct Log: Sendable, Hashable {
        public enum Format: String, Sendable, Hashable, CaseIterable {
            case text
            case json
        }

        public var level: Logger.Level = .info
        public var format: Format = .text
    }

    /// One app Herald delivers for: its APNs credentials (FCM joins later).
    public struct App: Sendable, Hashable {
        public struct APNS: Sendable, Hashable {
            public enum Environment: String, Sendable, Hashable, CaseIterable {
                case production
                case sandbox
            }

            public var keyFile: String?
            public var keyID: String?
            public var teamID: String?
            public var topic: String?
            public var environment: Environment = .production
            /// Overrides the environment's host, for a test peer such as `herald mock-apns`.
            public var host: String?
            public var port: Int = 443
            /// PEM certificates to trust instead of the system roots (for a test peer).
            public var caFile: String?
            public var connections: Int = 2

            public init() {}

            public var effectiveHost: String {
                self.host ?? (self.environment == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com")
            }
        }

        public var apns: APNS?

        public init(apns: APNS? = nil) {
            self.apns = apns
        }
    }

    public struct Delivery: Sendable, Hashable {
        /// The app of notifications that name none; with one app configured, that app.
        public var defaultApp: String?
    }

    public struct Metrics: Sendable, Hashable {
        /// When set, `/metrics` answers only requests bearing this token.
        public var bearerToken: String?
    }

    public var server = Server()
    public var store = Store()
    public var log = Log()
    public var metrics = Metrics()
    public var apps: [String: App] = [:]
    public var delivery = Delivery()

    public init() {}

    /// Every key Herald reads, in the order `--print-config` and the docs list them.
    public static let keys: [ConfigurationKey] = [
        ConfigurationKey("server.host", .string, default: "127.0.0.1", help: "Address the HTTP server binds to."),
        ConfigurationKey("server.port", .port, default: "8080", help: "TCP port of the HTTP server; 0 picks a free port."),
        ConfigurationKey(
            "server.shutdown-timeout",
            .duration,
            default: "30s",
            help: "On SIGTERM or SIGINT, how long in-flight requests may take before they are cancelled."
        ),
        ConfigurationKey("store.path", .string, default: "./herald-data", help: "Directory of the node's LMDB store (created if missing)."),
        ConfigurationKey(
            "store.map-size",
            .size,
            default: "1GiB",
            help: "Initial LMDB map size. Address space, not memory; the map doubles when full."
        ),
        ConfigurationKey(
            "store.max-map-size",
            .size,
            default: "256GiB",
            help: "Largest the map may grow to; beyond it writes fail with `store.full`."
        ),
        ConfigurationKey(
            "store.durable",
            .bool,
            default: "true",
            help: "fsync every commit. `false` survives a process crash but not a power loss."
        ),
        ConfigurationKey(
            "log.level",
            .oneOf(Logger.Level.allCases.map(\.rawValue)),
            default: "info",
            help: "Lowest level of log lines written."
        ),
        ConfigurationKey(
            "log.format",
            .oneOf(Log.Format.allCases.map(\.rawValue)),
            default: "text",
            help: "`text` for people, `json` for one JSON object per line."
        ),
        ConfigurationKey(
            "delivery.default-app",
            .string,
            default: nil,
            help: "App of notifications that name none; with one app configured, that app."
        ),
        ConfigurationKey(
            "apps.<app>.apns.key-file",
            .string,
            default: nil,
            help: "The app's APNs signing key (`.p8` file, P-256 PEM). Required with the other APNs keys."
        ),
        ConfigurationKey("apps.<app>.apns.key-id", .string, default: nil, help: "Key ID of the `.p8` key (10 characters)."),
        ConfigurationKey("apps.<app>.apns.team-id", .string, default: nil, help: "Team ID the key belongs to (10 characters)."),
        ConfigurationKey(
            "apps.<app>.apns.topic",
            .string,
            default: nil,
            help: "Bundle id used as `apns-topic` when a device names none; the push type's suffix is added."
        ),
        ConfigurationKey(
            "apps.<app>.apns.environment",
            .oneOf(App.APNS.Environment.allCases.map(\.rawValue)),
            default: "production",
            help: "`production` (api.push.apple.com) or `sandbox` (api.sandbox.push.apple.com)."
        ),
        ConfigurationKey(
            "apps.<app>.apns.host",
            .string,
            default: nil,
            help: "APNs host instead of the environment's, for a test peer such as `herald mock-apns`."
        ),
        ConfigurationKey("apps.<app>.apns.port", .port, default: "443", help: "APNs port (443, or 2197)."),
        ConfigurationKey(
            "apps.<app>.apns.ca-file",
            .string,
            default: nil,
            help: "PEM certificates to trust instead of the system's, for a test peer."
        ),
        ConfigurationKey("apps.<app>.apns.connections", .integer(1...64), default: "2", help: "HTTP/2 connections kept to APNs for this app."),
        ConfigurationKey(
            "metrics.bearer-token",
            .string,
            default: nil,
            secret: true,
            help: "When set, `/metrics` requires `Authorization: Bearer <token>`."
        ),
    ]
}

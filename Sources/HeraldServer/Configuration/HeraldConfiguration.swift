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

    public struct Metrics: Sendable, Hashable {
        /// When set, `/metrics` answers only requests bearing this token.
        public var bearerToken: String?
    }

    public var server = Server()
    public var store = Store()
    public var log = Log()
    public var metrics = Metrics()

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
            "metrics.bearer-token",
            .string,
            default: nil,
            secret: true,
            help: "When set, `/metrics` requires `Authorization: Bearer <token>`."
        ),
    ]
}

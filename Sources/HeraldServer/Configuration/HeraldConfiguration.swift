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

    /// One app Herald delivers for: its APNs credentials, its FCM project, or both.
    public struct App: Sendable, Hashable {
        public struct APNS: Sendable, Hashable {
            public enum Environment: String, Sendable, Hashable, CaseIterable {
                case production
                case sandbox
            }

            public var keyFile: String?
            public var keyID: String?
            public var teamID: String?
            /// Certificate authentication, the alternative to a signing key: PEM client
            /// certificate and its private key.
            public var certificateFile: String?
            public var certificateKeyFile: String?
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

            /// Whether any credential key is set; an APNS section without one is only defaults.
            var isConfigured: Bool {
                [self.keyFile, self.keyID, self.teamID, self.certificateFile, self.certificateKeyFile].contains { $0 != nil }
            }
        }

        public struct FCM: Sendable, Hashable {
            /// The service-account JSON key file of the Firebase project.
            public var serviceAccountFile: String?
            /// Overrides the service account's `project_id` in the send path.
            public var projectID: String?
            /// Overrides fcm.googleapis.com, for a test peer such as `herald mock-fcm`.
            public var host: String?
            public var port: Int = 443
            /// PEM certificates to trust instead of the system roots, for FCM and its token
            /// endpoint (a test peer).
            public var caFile: String?
            public var connections: Int = 2

            public init() {}

            public var effectiveHost: String { self.host ?? "fcm.googleapis.com" }

            var isConfigured: Bool { self.serviceAccountFile != nil || self.projectID != nil }
        }

        public var apns: APNS?
        public var fcm: FCM?

        public init(apns: APNS? = nil, fcm: FCM? = nil) {
            self.apns = apns
            self.fcm = fcm
        }
    }

    public struct Delivery: Sendable, Hashable {
        /// The app of notifications that name none; with one app configured, that app.
        public var defaultApp: String?
    }

    public struct API: Sendable, Hashable {
        /// When set, the push APIs (`/api/*`) answer only requests bearing this token.
        public var bearerToken: String?
    }

    public struct Gorush: Sendable, Hashable {
        /// gorush's `core.sync`: answer `/api/push` after delivery, with the failures.
        public var sync = true
        /// gorush's `core.queue_num`: pushes waiting or running in async mode.
        public var queueLimit = 8192
    }

    public struct Feedback: Sendable, Hashable {
        /// Where failed pushes are posted; `nil` posts none.
        public var url: String?
        public var bearerToken: String?
        public var timeout: Duration = .seconds(10)
        public var maximumAttempts = 5
        public var queueLimit = 10_000
    }

    public struct Status: Sendable, Hashable {
        /// The server's secp256k1 identity key (hex, as `herald keygen` writes it); the Status
        /// front door runs only when it is set.
        public var identityKeyFile: String?
        /// How long handled push requests are remembered against redelivery.
        public var deduplicationWindow: Duration = .seconds(30 * 24 * 3600)
        /// An external gorush `/api/push` that receives status-go's JSON instead of Herald's own
        /// delivery.
        public var gorushURL: String?
        /// A nwaku node's REST API to receive and publish Status messages through.
        public var nwakuURL: String?
        public var pubsubTopic = "/waku/2/rs/16/32"
        /// Pushes handed over and not yet delivered.
        public var queueLimit = 8192
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
    public var api = API()
    public var gorush = Gorush()
    public var feedback = Feedback()
    public var status = Status()

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
            "apps.<app>.apns.certificate-file",
            .string,
            default: nil,
            help: "Certificate authentication instead of a signing key: the app's PEM client certificate."
        ),
        ConfigurationKey(
            "apps.<app>.apns.certificate-key-file",
            .string,
            default: nil,
            help: "PEM private key of `apps.<app>.apns.certificate-file` (may be the same file)."
        ),
        ConfigurationKey(
            "apps.<app>.fcm.service-account-file",
            .string,
            default: nil,
            help: "The Firebase project's service-account JSON key file (FCM HTTP v1, OAuth 2.0)."
        ),
        ConfigurationKey(
            "apps.<app>.fcm.project-id",
            .string,
            default: nil,
            help: "Project id (or number) in the send URL instead of the service account's `project_id`."
        ),
        ConfigurationKey(
            "apps.<app>.fcm.host",
            .string,
            default: nil,
            help: "FCM host instead of fcm.googleapis.com, for a test peer such as `herald mock-fcm`."
        ),
        ConfigurationKey("apps.<app>.fcm.port", .port, default: "443", help: "FCM port."),
        ConfigurationKey(
            "apps.<app>.fcm.ca-file",
            .string,
            default: nil,
            help: "PEM certificates to trust instead of the system's, for FCM and the token endpoint of a test peer."
        ),
        ConfigurationKey("apps.<app>.fcm.connections", .integer(1...64), default: "2", help: "HTTP/2 connections kept to FCM for this app."),
        ConfigurationKey(
            "api.bearer-token",
            .string,
            default: nil,
            secret: true,
            help: "When set, `/api/*` requires `Authorization: Bearer <token>`. Required when `server.host` is not a loopback address."
        ),
        ConfigurationKey(
            "gorush.sync",
            .bool,
            default: "true",
            help: "`true` answers `/api/push` after delivery with the failures; `false` answers at once (gorush's default) and reports failures to the feedback webhook."
        ),
        ConfigurationKey(
            "gorush.queue-limit",
            .integer(1...10_000_000),
            default: "8192",
            help: "Async mode: pushes waiting or running at once; beyond it targets fail with `max capacity reached`."
        ),
        ConfigurationKey(
            "feedback.url",
            .string,
            default: nil,
            help: "http(s) URL that receives one JSON POST per failed push (gorush's failed-push entry plus `result`, `id`, `app`, `time`)."
        ),
        ConfigurationKey("feedback.bearer-token", .string, default: nil, secret: true, help: "Sent as `Authorization: Bearer <token>` to the feedback URL."),
        ConfigurationKey("feedback.timeout", .duration, default: "10s", help: "How long one feedback POST may take."),
        ConfigurationKey("feedback.max-attempts", .integer(1...100), default: "5", help: "Attempts per event, with back-off, before it is logged and dropped."),
        ConfigurationKey(
            "feedback.queue-limit",
            .integer(1...10_000_000),
            default: "10000",
            help: "Events waiting to be posted; beyond it new events are dropped and counted in `herald_feedback_events_total`."
        ),
        ConfigurationKey(
            "status.identity-key-file",
            .string,
            default: nil,
            help: "File holding the Status server's secp256k1 private key in hex (`herald keygen` writes one). Setting it enables the Status front door (`POST /waku/v1/messages`); the public key is logged at start."
        ),
        ConfigurationKey(
            "status.dedup-window",
            .duration,
            default: "30d",
            help: "How long a handled Status push request is remembered, so a redelivered copy is not pushed twice."
        ),
        ConfigurationKey(
            "status.gorush-url",
            .string,
            default: nil,
            help: "When set, Status pushes are POSTed to this gorush `/api/push` URL exactly as status-go sends them, instead of through Herald's own APNs/FCM connections."
        ),
        ConfigurationKey(
            "status.queue-limit",
            .integer(1...10_000_000),
            default: "8192",
            help: "Status pushes waiting or running at once (they are delivered after the answer); beyond it a push request gets no answer, as status-go gives none when gorush fails."
        ),
        ConfigurationKey(
            "status.nwaku-url",
            .string,
            default: nil,
            help: "REST URL of a nwaku node (e.g. `http://127.0.0.1:8645`). When set, Herald subscribes to `status.pubsub-topic` there, answers the Status messages on its topics and publishes the answers."
        ),
        ConfigurationKey(
            "status.pubsub-topic",
            .string,
            default: "/waku/2/rs/16/32",
            help: "The Waku pubsub topic Status clients publish on (status-go's default shard)."
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

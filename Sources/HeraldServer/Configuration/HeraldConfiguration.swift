public import HeraldConfig
public import HeraldDelivery
public import HeraldStore
public import Logging

/// Everything `herald serve` is configured with, parsed and validated.
public struct HeraldConfiguration: Sendable, Hashable {
    public struct Server: Sendable, Hashable {
        public var host: String = "127.0.0.1"
        public var port: Int = 8080
        /// How long graceful shutdown may take before what is left is cancelled.
        public var shutdownTimeout: Duration = .seconds(30)
        /// How long a connection may stay idle before it is closed.
        public var idleTimeout: Duration = .seconds(60)
        /// How long a request, head and body, may take to arrive from its first byte.
        public var requestTimeout: Duration = .seconds(30)
        /// Connections served at once on the API port; more wait in the listen backlog.
        public var maxConnections = 8192
        /// A port of its own for `/healthz`, `/readyz`, `/metrics` and `/cluster`, which API
        /// traffic cannot crowd out; `nil` serves them on the API port only.
        public var operationsPort: Int?
        /// Busy front-door routes (gorush's `POST /api/push`) answered from the connection's
        /// pipeline instead of through the router; `false` sends every request to the router.
        public var directRoutes = true
    }

    public struct Store: Sendable, Hashable {
        public var path: String = "./herald-data"
        /// File of the key ring sealing registrations and log entries; `nil` is `store.encryptionKey`
        /// or, alone, `<path>/store.key` (created at first start).
        public var encryptionKeyFile: String?
        /// The key ring itself (hex keys), usually from the environment.
        public var encryptionKey: String?
        public var environment = LMDBEnvironment.Configuration()
        /// Alone, what the store's own log keeps past what the view applied.
        public var logRetention = 100_000
        public var logRetentionDuration: Duration = .seconds(600)
    }

    public struct Log: Sendable, Hashable {
        public enum Format: String, Sendable, Hashable, CaseIterable {
            case text
            case json
        }

        public var level: Logger.Level = .info
        public var format: Format = .text
    }

    /// One app Herald delivers for: one section per provider it has credentials for.
    public struct App: Sendable, Hashable {
        public var providers = ConfigurationSections()

        /// An app with these providers' sections.
        public init(_ providers: any ProviderConfiguration...) {
            for provider in providers { self.providers.insert(provider) }
        }

        /// The app's section of one provider; `nil` when the app has no credentials for it.
        public subscript<Provider: ProviderConfiguration>(_ type: Provider.Type) -> Provider? {
            get { self.providers.names.contains(Provider.section) ? self.providers[type] : nil }
            set {
                if let newValue { self.providers[type] = newValue } else { self.providers.remove(Provider.section) }
            }
        }

        /// One phrase per provider, for the start-up log.
        var summaries: [String] {
            self.providers.names.sorted().compactMap { (self.providers.value(named: $0) as? any ProviderConfiguration)?.summary }
        }

        /// The same phrases by section name (`apns`, `fcm`), which is also the provider's name.
        var summariesBySection: [String: String] {
            var phrases: [String: String] = [:]
            for name in self.providers.names {
                if let summary = (self.providers.value(named: name) as? any ProviderConfiguration)?.summary { phrases[name] = summary }
            }
            return phrases
        }
    }

    public struct Delivery: Sendable, Hashable {
        /// The app of notifications that name none; with one app configured, that app.
        public var defaultApp: String?
        /// Pushes a minute one device token may be sent; 0 is no limit.
        public var deviceRateLimit = 0
        /// Whether pushes answered for before delivery are journaled on disk.
        public var journal = true
        public var journalMaximumAge: Duration = .seconds(86400)
        /// The library that frames the HTTP/2 of APNs and FCM connections.
        public var http2Codec: HTTP2Codec = .nghttp2
    }

    public struct API: Sendable, Hashable {
        /// When set, the push APIs (`/api/*`) answer only requests bearing this token.
        public var bearerToken: String?
    }

    public struct Feedback: Sendable, Hashable {
        /// Where failed pushes are posted; `nil` posts none.
        public var url: String?
        public var bearerToken: String?
        public var timeout: Duration = .seconds(10)
        public var maximumAttempts = 5
        public var queueLimit = 10_000
    }

    public struct Metrics: Sendable, Hashable {
        /// When set, `/metrics` answers only requests bearing this token.
        public var bearerToken: String?
    }

    /// Cluster mode: the command log in etcd instead of the node's own LMDB.
    public struct Cluster: Sendable, Hashable {
        /// Client URLs of the etcd members; empty runs the node alone.
        public var etcdEndpoints: [String] = []
        /// Prefix of every key Herald writes in etcd.
        public var prefix = "herald/"
        /// Partitions registrations are divided into; the same on every node, fixed for the
        /// cluster's life.
        public var partitions = 256
        /// How far (in etcd revisions) the view may trail the log and still be ready.
        public var readyLag = 1000
        /// What the log keeps past what every live member has applied.
        public var logRetention = 100_000
        public var logRetentionDuration: Duration = .seconds(600)
        /// Between two turns of publishing the applied position and trimming.
        public var trimInterval: Duration = .seconds(10)
        /// How long one etcd call may take.
        public var requestTimeout: Duration = .seconds(5)
        /// This node's id among the members; `nil` derives one from the host name and port.
        public var nodeID: String?
        /// Where the other nodes reach this one; `nil` derives it from `server.host` and the port.
        public var advertiseURL: String?
        /// Seconds the membership lease lives without renewal: how long a dead node's partitions
        /// wait before moving.
        public var leaseTTL = 5
        /// Shared by the nodes: forwarded requests must bear it.
        public var secret: String?
        /// Mutual TLS between nodes: this node's certificate chain and key (its server
        /// certificate on the internal listener and its client certificate toward the others)
        /// and the CA that signs every node's certificate. Set, the internal API moves off the
        /// public port to its own TLS listener on `internalPort`.
        public var tlsCertificateFile: String?
        public var tlsKeyFile: String?
        public var tlsCAFile: String?
        public var internalPort = 8443

        public var usesTLS: Bool { self.tlsCertificateFile != nil }

        public var isEnabled: Bool { !self.etcdEndpoints.isEmpty }
    }

    public var server = Server()
    public var store = Store()
    public var log = Log()
    public var metrics = Metrics()
    public var cluster = Cluster()
    public var apps: [String: App] = [:]
    public var delivery = Delivery()
    public var api = API()
    public var feedback = Feedback()
    /// Each front door's own section, by its type: `frontDoors[Door.Configuration.self]`.
    public var frontDoors = ConfigurationSections()

    public init() {}

    /// The node's own keys, in the order `--print-config` and the docs list them; providers and
    /// front doors declare theirs beside their code (`HeraldConfiguration.keys` has them all).
    static let nodeKeys: [ConfigurationKey] = [
        ConfigurationKey("server.host", .string, default: "127.0.0.1", help: "Address the HTTP server binds to."),
        ConfigurationKey("server.port", .port, default: "8080", help: "TCP port of the HTTP server; 0 picks a free port."),
        ConfigurationKey(
            "server.shutdown-timeout",
            .duration,
            default: "30s",
            help: "On SIGTERM or SIGINT, how long in-flight requests may take before they are cancelled."
        ),
        ConfigurationKey(
            "server.idle-timeout",
            .duration,
            default: "60s",
            help: "A connection that sends nothing for this long is closed."
        ),
        ConfigurationKey(
            "server.request-timeout",
            .duration,
            default: "30s",
            help: "A request whose head and body have not all arrived this long after its first byte is cut off and its connection closed (slowloris clients dripping a header or a body); counted in `herald_http_request_timeouts_total`. Time spent answering does not count."
        ),
        ConfigurationKey(
            "server.max-connections",
            .integer(1...1_000_000),
            default: "8192",
            help: "Connections the API port serves at once; more wait in the listen backlog until one closes. Lowered to the open-file limit less a reserve for the store, providers and etcd."
        ),
        ConfigurationKey(
            "server.operations-port",
            .port,
            default: nil,
            help: "A second port for `/healthz`, `/readyz`, `/metrics` and `/cluster` (still on the API port too), with its own 64 connections, so probes and scrapes answer while API clients hold every connection of the API port."
        ),
        ConfigurationKey(
            "server.direct-routes",
            .bool,
            default: "true",
            help: "Answer gorush's `POST /api/push` from the connection's pipeline, without a task, request context and middleware chain a request (the same answers, metrics and limits; requests with an `Idempotency-Key`, a chunked body or no API token still go through the router). `false` sends every request through the router."
        ),
        ConfigurationKey("store.path", .string, default: "./herald-data", help: "Directory of the node's LMDB store (created if missing)."),
        ConfigurationKey(
            "store.encryption-key-file",
            .string,
            default: nil,
            help: "File holding the key ring that seals device tokens and whatever secrets front doors keep with registrations at rest (AES-256-GCM over every registration and log entry, in LMDB and etcd): 64 hex digits a key, one per line, the sealing key first, older ones after it to keep reading what they sealed (`herald store rotate-key` re-seals the store). Unset, and without `store.encryption-key`, a node alone uses `<store.path>/store.key`, created at first start; a cluster needs one of the two, the same on every node."
        ),
        ConfigurationKey(
            "store.encryption-key",
            .string,
            default: nil,
            secret: true,
            help: "The key ring of `store.encryption-key-file` given directly, usually as `HERALD_STORE_ENCRYPTION_KEY`: hex keys separated by commas, the sealing key first."
        ),
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
            "store.log-retention",
            .integer(0...1_000_000_000),
            default: "100000",
            help: "Alone, entries the store's own log keeps below what the view has applied; older ones (also past `store.log-retention-duration`) are folded into the log's base, so the store grows with registrations, not with their history. In a cluster the log is etcd's: `cluster.log-retention`."
        ),
        ConfigurationKey(
            "store.log-retention-duration",
            .duration,
            default: "10m",
            help: "Alone, history the store's own log keeps however few entries it holds. The longer of the two retentions wins."
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
            "delivery.device-rate-limit",
            .integer(0...1_000_000),
            default: "0",
            help: "Pushes a minute one device token may be sent, from every front door together, in bursts of as many (FCM documents 240 a minute per device; iOS throttles background pushes). Beyond it a push fails at once with `TooManyRequests`, which each front door answers in its own protocol (a failed-push entry, or 429 with `Retry-After`), counted in `herald_delivery_device_rate_limited_total`. 0 (the default) is no limit. Counted per node."
        ),
        ConfigurationKey(
            "delivery.journal",
            .bool,
            default: "true",
            help: "Keep every push a front door answers for before delivering it (gorush in async mode, Status push requests) and every feedback event still to post in a journal on disk (`<store.path>/queue`, its own LMDB file, fsynced like the store) until it ends; a restart, on this host or another given the same directory, resumes them. `false` keeps them in memory only: a crash loses them."
        ),
        ConfigurationKey(
            "delivery.journal-max-age",
            .duration,
            default: "24h",
            help: "How long after it was accepted a journaled push (or feedback event) is still delivered when a restart finds it; older ones are reported failed (`deadline_exceeded`) and counted in `herald_queue_expired_total`. A push's own expiration, when sooner, counts instead."
        ),
        ConfigurationKey(
            "delivery.http2-codec",
            .oneOf(HTTP2Codec.allCases.map(\.rawValue)),
            default: "nghttp2",
            help: "The library that frames the HTTP/2 of APNs and FCM connections: `nghttp2` (libnghttp2's session, driven from memory buffers behind swift-nio-ssl's TLS) or `nio` (SwiftNIO's NIOHTTP2). Both send, time out, reset and retry requests alike; `nghttp2` costs about 40 % less CPU a notification when a request carries many (docs/benchmarks.md, issue 30)."
        ),
        ConfigurationKey(
            "api.bearer-token",
            .string,
            default: nil,
            secret: true,
            help: "When set, every front door's sender-facing routes require `Authorization: Bearer <token>` (scheme in any case). Routes of protocols that authenticate their own way (devices and wallets registering, senders that sign their own requests) never take it, nor do `/healthz`, `/readyz` and `/cluster`; the README's endpoint table says which route is which. Required when `server.host` is not a loopback address; visible ASCII only."
        ),
        ConfigurationKey(
            "feedback.url",
            .string,
            default: nil,
            help: "http(s) URL that receives one JSON POST per failed push (`type`, `platform`, `token`, `error`, `notif_id`, the fields of a failed-push log line that existing feedback receivers read, plus `result`, `id`, `app`, `time`). A user and password in it (`https://user:pass@host/…`) are sent as Basic authentication, unless `feedback.bearer-token` is set."
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
            "metrics.bearer-token",
            .string,
            default: nil,
            secret: true,
            help: "When set, `/metrics` requires `Authorization: Bearer <token>`, and so does `/cluster?digest=true` on a node without a cluster (in a cluster the digest takes `cluster.secret`; alone without this token it takes `api.bearer-token`, and with neither it answers loopback clients only)."
        ),
        ConfigurationKey(
            "cluster.etcd-endpoints",
            .list,
            default: nil,
            help: "Comma-separated client URLs of the etcd members (`http://10.0.0.1:2379,http://10.0.0.2:2379`). Setting it runs the node in a cluster: the command log is in etcd and every node applies it to its own LMDB view. See docs/cluster.md."
        ),
        ConfigurationKey("cluster.prefix", .string, default: "herald/", help: "Prefix of every key Herald writes in etcd; several clusters may share one etcd with different prefixes."),
        ConfigurationKey(
            "cluster.partitions",
            .integer(1...4096),
            default: "256",
            help: "Partitions registrations are divided into (by hashed public key). The same on every node, and fixed for the cluster's life."
        ),
        ConfigurationKey(
            "cluster.ready-lag",
            .integer(0...1_000_000),
            default: "1000",
            help: "`/readyz` answers 503 while the view trails the etcd log by more than this many revisions."
        ),
        ConfigurationKey(
            "cluster.log-retention",
            .integer(0...1_000_000_000),
            default: "100000",
            help: "etcd revisions the shared log keeps below the lowest position every live member has applied; entries older than both this and `cluster.log-retention-duration` are deleted (and etcd compacted there) by one member at a time. A member that was away longer than the log keeps restores a live member's snapshot when it starts. See docs/cluster.md."
        ),
        ConfigurationKey(
            "cluster.log-retention-duration",
            .duration,
            default: "10m",
            help: "History the shared log keeps however few revisions it holds: an entry younger than this is never deleted. The longer of the two retentions wins."
        ),
        ConfigurationKey(
            "cluster.trim-interval",
            .duration,
            default: "10s",
            help: "How often each member publishes how far it has applied the log, and the trimming member deletes what every live member has applied past the retention."
        ),
        ConfigurationKey("cluster.request-timeout", .duration, default: "5s", help: "How long one etcd call may take before the next member is tried or the call fails."),
        ConfigurationKey(
            "cluster.node-id",
            .string,
            default: nil,
            help: "This node's id among the members (letters, digits, `.`, `_`, `-`); unset, the host name and `server.port`. Must be unique in the cluster."
        ),
        ConfigurationKey(
            "cluster.advertise-url",
            .string,
            default: nil,
            help: "The URL other nodes reach this node at; unset, `http://<server.host>:<server.port>`."
        ),
        ConfigurationKey(
            "cluster.lease-ttl",
            .integer(2...300),
            default: "5",
            help: "Seconds a node's membership lives without renewal (renewed every third of it): after a crash, its partitions move to the others this long after its last renewal."
        ),
        ConfigurationKey(
            "cluster.secret",
            .string,
            default: nil,
            secret: true,
            help: "Shared by every node of the cluster: requests one node forwards to another (`/internal/*`) must bear it as `Authorization: Bearer <secret>`. Required with `cluster.etcd-endpoints`."
        ),
        ConfigurationKey(
            "cluster.tls-certificate-file",
            .string,
            default: nil,
            help: "Mutual TLS between nodes (optional): PEM certificate chain of this node, its server certificate on the internal listener and its client certificate toward the other nodes. With `cluster.tls-key-file`, `cluster.tls-ca-file` and `cluster.internal-port`, the internal API (`/internal/*`) leaves the public port for a TLS listener that takes only clients with a certificate the CA signed."
        ),
        ConfigurationKey("cluster.tls-key-file", .string, default: nil, help: "Mutual TLS between nodes: PEM private key of `cluster.tls-certificate-file`."),
        ConfigurationKey(
            "cluster.tls-ca-file",
            .string,
            default: nil,
            help: "Mutual TLS between nodes: PEM certificate(s) of the CA that signs every node's certificate; both ends of a connection between nodes must present one it signed. Host names are not checked: the private CA is the trust boundary."
        ),
        ConfigurationKey(
            "cluster.internal-port",
            .port,
            default: "8443",
            help: "Mutual TLS between nodes: TCP port of the internal TLS listener (on `server.host`); unused without `cluster.tls-*`. `cluster.advertise-url` then names it with `https://`; unset, it is `https://<server.host>:<cluster.internal-port>`."
        ),
    ]
}

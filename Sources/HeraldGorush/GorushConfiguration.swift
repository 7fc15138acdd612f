public import HeraldConfig

/// The gorush front door's section, `gorush.*`: gorush's own `core.sync` and `core.queue_num`.
public struct GorushConfiguration: ConfigurationSectionValue {
    /// gorush's `core.sync`: answer `/api/push` after delivery, with the failures.
    public var sync = true
    /// gorush's `core.queue_num`: pushes waiting or running, in either mode.
    public var queueLimit = 8192
    /// gorush's `core.max_notification`: entries a request may hold.
    public var maximumNotifications = 100
    /// Tokens one entry may list, on every platform (gorush caps only Android's, at 500).
    public var maximumTokens = 500
    /// Targets (tokens and topics) one request may hold in all.
    public var maximumTargets = 5_000
    /// Targets a minute one client address may send; 0 is no limit.
    public var rateLimit = 0
    /// How long the answer to a request with an `Idempotency-Key` is kept and replayed.
    public var idempotencyWindow: Duration = .seconds(24 * 3600)

    public init() {}

    public static let section = "gorush"

    public static let keys: [ConfigurationKey] = [
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
            help: "Pushes waiting or running at once, in either mode; beyond it targets fail with `max capacity reached` (gorush's answer when its queue is full). Bounds the memory accepted requests hold."
        ),
        ConfigurationKey(
            "gorush.max-notifications",
            .integer(1...100_000),
            default: "100",
            help: "gorush's `core.max_notification`: entries one `/api/push` request may hold; more is refused with 400 `Number of notifications(N) over limit(M)`."
        ),
        ConfigurationKey(
            "gorush.max-tokens",
            .integer(1...100_000),
            default: "500",
            help: "Tokens one entry may list, on every platform; more is refused with 400 `Number of tokens(N) in notification I over limit(M)`. gorush caps only Android entries (at 500, as a failed-push entry)."
        ),
        ConfigurationKey(
            "gorush.max-targets",
            .integer(1...1_000_000),
            default: "5000",
            help: "Targets (tokens and topics) one `/api/push` request may hold in all; more is refused with 400 `Number of targets(N) over limit(M)`. A `gorush.queue-limit` below it lowers it, since a larger request could never be taken."
        ),
        ConfigurationKey(
            "gorush.idempotency-window",
            .duration,
            default: "24h",
            help: "How long the answer to an `/api/push` request with an `Idempotency-Key` header is kept: a repeat with the same key and body within it gets that answer (`Idempotent-Replayed: true`) and pushes nothing again; the same key with another body is refused with 422. In a cluster the key's partition owner keeps it."
        ),
        ConfigurationKey(
            "gorush.rate-limit",
            .integer(0...1_000_000_000),
            default: "0",
            help: "Targets a minute one client IP address may send through `/api/push`, in bursts of as many (a request larger than that waits for a full bucket); beyond it the request is refused with 429 `{\"code\":429,…}` and `Retry-After`, counted in `herald_gorush_rate_limited_total`. 0 (the default: API clients hold the bearer token) is no limit. Counted per node."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.rateLimit = try section.integer("rate-limit")
        self.sync = try section.bool("sync")
        self.queueLimit = try section.integer("queue-limit")
        self.maximumNotifications = try section.integer("max-notifications")
        self.maximumTokens = try section.integer("max-tokens")
        self.maximumTargets = try section.integer("max-targets")
        self.idempotencyWindow = try section.duration("idempotency-window", atLeast: .seconds(1))
    }
}

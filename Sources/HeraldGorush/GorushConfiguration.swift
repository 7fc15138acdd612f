public import HeraldConfig

/// The gorush front door's section, `gorush.*`: gorush's own `core.sync` and `core.queue_num`.
public struct GorushConfiguration: ConfigurationSectionValue {
    /// gorush's `core.sync`: answer `/api/push` after delivery, with the failures.
    public var sync = true
    /// gorush's `core.queue_num`: pushes waiting or running in async mode.
    public var queueLimit = 8192
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
            help: "Async mode: pushes waiting or running at once; beyond it targets fail with `max capacity reached`."
        ),
        ConfigurationKey(
            "gorush.idempotency-window",
            .duration,
            default: "24h",
            help: "How long the answer to an `/api/push` request with an `Idempotency-Key` header is kept: a repeat with the same key and body within it gets that answer (`Idempotent-Replayed: true`) and pushes nothing again; the same key with another body is refused with 422. In a cluster the key's partition owner keeps it."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.sync = try section.bool("sync")
        self.queueLimit = try section.integer("queue-limit")
        self.idempotencyWindow = try section.duration("idempotency-window", atLeast: .seconds(1))
    }
}

public import HeraldConfig

/// The gorush front door's section, `gorush.*`: gorush's own `core.sync` and `core.queue_num`.
public struct GorushConfiguration: ConfigurationSectionValue {
    /// gorush's `core.sync`: answer `/api/push` after delivery, with the failures.
    public var sync = true
    /// gorush's `core.queue_num`: pushes waiting or running in async mode.
    public var queueLimit = 8192

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
    ]

    public init(reading section: ConfigurationSection) throws {
        self.sync = try section.bool("sync")
        self.queueLimit = try section.integer("queue-limit")
    }
}

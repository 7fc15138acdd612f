import HeraldConfig

/// The stateful example front door's section, `pager.*`.
struct PagerConfiguration: ConfigurationSectionValue {
    var enabled = false
    var dedupWindow: Duration = .seconds(3600)

    init() {}

    static let section = "pager"

    static let keys: [ConfigurationKey] = [
        ConfigurationKey("pager.enabled", .bool, default: "false", help: "Serves the example pager front door."),
        ConfigurationKey("pager.dedup-window", .duration, default: "1h", help: "How long a page id is remembered, so a repeat is refused."),
    ]

    init(reading section: ConfigurationSection) throws {
        self.enabled = try section.bool("enabled")
        self.dedupWindow = try section.duration("dedup-window", atLeast: .seconds(1))
    }
}

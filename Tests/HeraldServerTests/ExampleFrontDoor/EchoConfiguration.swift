import HeraldConfig

/// The example front door's section, `echo.*`, declared and read beside its code.
struct EchoConfiguration: ConfigurationSectionValue {
    var greeting: String?
    var repeats = 1

    init() {}

    static let section = "echo"

    static let keys: [ConfigurationKey] = [
        ConfigurationKey("echo.greeting", .string, default: nil, help: "What `GET /echo/v1` answers; setting it enables the front door."),
        ConfigurationKey("echo.repeats", .integer(1...5), default: "1", help: "How many times the greeting is repeated."),
    ]

    init(reading section: ConfigurationSection) throws {
        self.greeting = try section.string("greeting")
        self.repeats = try section.integer("repeats")
    }
}

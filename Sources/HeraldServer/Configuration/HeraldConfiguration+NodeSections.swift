import HeraldConfig
import HeraldStore
import Logging

extension HeraldConfiguration {
    /// Reads the node's own sections; providers and front doors read theirs.
    mutating func readNodeSections(_ section: (String) -> ConfigurationSection) throws {
        self.server = try Server(reading: section("server"))
        self.store = try Store(reading: section("store"))
        self.log = try Log(reading: section("log"))
        self.delivery = try Delivery(reading: section("delivery"))
        self.api = try API(reading: section("api"))
        self.feedback = try Feedback(reading: section("feedback"))
        self.metrics = try Metrics(reading: section("metrics"))
    }
}

extension HeraldConfiguration.Server {
    init(reading section: ConfigurationSection) throws {
        self.host = try section.nonEmptyString("host", expecting: "a host name or address") ?? self.host
        self.port = try section.integer("port")
        self.shutdownTimeout = try section.duration("shutdown-timeout")
    }
}

extension HeraldConfiguration.Store {
    init(reading section: ConfigurationSection) throws {
        self.path = try section.nonEmptyString("path", expecting: "a directory path") ?? self.path
        self.environment.mapSize = try section.size("map-size")
        self.environment.maxMapSize = try section.size("max-map-size")
        self.environment.durable = try section.bool("durable")
    }
}

extension HeraldConfiguration.Log {
    init(reading section: ConfigurationSection) throws {
        self.level = try section.choice("level", as: Logger.Level.self)
        self.format = try section.choice("format", as: Format.self)
    }
}

extension HeraldConfiguration.Delivery {
    init(reading section: ConfigurationSection) throws {
        self.defaultApp = try section.rawString("default-app")
    }
}

extension HeraldConfiguration.API {
    init(reading section: ConfigurationSection) throws {
        self.bearerToken = try section.secret("bearer-token")
    }
}

extension HeraldConfiguration.Feedback {
    init(reading section: ConfigurationSection) throws {
        self.url = try section.httpURL("url")
        self.bearerToken = try section.secret("bearer-token")
        self.timeout = try section.duration("timeout", atLeast: .milliseconds(1))
        self.maximumAttempts = try section.integer("max-attempts")
        self.queueLimit = try section.integer("queue-limit")
    }
}

extension HeraldConfiguration.Metrics {
    init(reading section: ConfigurationSection) throws {
        self.bearerToken = try section.secret("bearer-token")
    }
}

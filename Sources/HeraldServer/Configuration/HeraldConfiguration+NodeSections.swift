import HeraldCore
import Foundation
import HeraldConfig
import HeraldDelivery
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
        self.cluster = try Cluster(reading: section("cluster"))
    }
}

extension HeraldConfiguration.Server {
    init(reading section: ConfigurationSection) throws {
        self.host = try section.nonEmptyString("host", expecting: "a host name or address") ?? self.host
        self.port = try section.integer("port")
        self.shutdownTimeout = try section.duration("shutdown-timeout")
        self.idleTimeout = try section.duration("idle-timeout", atLeast: .milliseconds(100))
        self.requestTimeout = try section.duration("request-timeout", atLeast: .milliseconds(100))
        self.maxConnections = try section.integer("max-connections")
        self.directRoutes = try section.bool("direct-routes")
        if section.isSet("operations-port") {
            let port = try section.integer("operations-port")
            guard port > 0 else { throw section.error("operations-port", "'0' is not a port number from 1 to 65535") }
            self.operationsPort = port
        }
    }
}

extension HeraldConfiguration.Store {
    init(reading section: ConfigurationSection) throws {
        self.path = try section.nonEmptyString("path", expecting: "a directory path") ?? self.path
        self.environment.mapSize = try section.size("map-size")
        self.environment.maxMapSize = try section.size("max-map-size")
        self.environment.durable = try section.bool("durable")
        self.logRetention = try section.integer("log-retention")
        self.logRetentionDuration = try section.duration("log-retention-duration")
        self.encryptionKeyFile = try section.nonEmptyString("encryption-key-file", expecting: "a file path")
        self.encryptionKey = try section.secret("encryption-key")
        if self.encryptionKeyFile != nil, self.encryptionKey != nil {
            throw section.error("encryption-key", "set either store.encryption-key or store.encryption-key-file, not both")
        }
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
        self.deviceRateLimit = try section.integer("device-rate-limit")
        self.journal = try section.bool("journal")
        self.journalMaximumAge = try section.duration("journal-max-age", atLeast: .seconds(1))
        self.http2Codec = try section.choice("http2-codec", as: HTTP2Codec.self)
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

extension HeraldConfiguration.Cluster {
    init(reading section: ConfigurationSection) throws {
        let endpoints = try section.list("etcd-endpoints")
        for endpoint in endpoints {
            guard ConfigurationValueParsing.isHTTPURL(endpoint) else {
                throw section.error("etcd-endpoints", "'\(URLRedaction.redact(endpoint))' is not an http or https URL such as http://127.0.0.1:2379")
            }
        }
        self.etcdEndpoints = endpoints
        let prefix = try section.string("prefix") ?? ""
        guard !prefix.isEmpty, prefix.hasSuffix("/") else { throw section.error("prefix", "'\(prefix)' must be non-empty and end with /") }
        self.prefix = prefix
        self.partitions = try section.integer("partitions")
        self.readyLag = try section.integer("ready-lag")
        self.logRetention = try section.integer("log-retention")
        self.logRetentionDuration = try section.duration("log-retention-duration")
        self.trimInterval = try section.duration("trim-interval", atLeast: .milliseconds(100))
        self.requestTimeout = try section.duration("request-timeout", atLeast: .milliseconds(100))
        if let id = try section.string("node-id") {
            guard id.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0) }), id.count <= 128 else {
                throw section.error("node-id", "'\(id)' must be letters, digits, '.', '_' or '-' (at most 128)")
            }
            self.nodeID = id
        }
        self.advertiseURL = try section.httpURL("advertise-url")
        self.leaseTTL = try section.integer("lease-ttl")
        self.secret = try section.secret("secret")
        if self.isEnabled, self.secret == nil {
            throw section.error("secret", "is required with cluster.etcd-endpoints: nodes authenticate the requests they forward to each other with it")
        }
        self.tlsCertificateFile = try section.string("tls-certificate-file")
        self.tlsKeyFile = try section.string("tls-key-file")
        self.tlsCAFile = try section.string("tls-ca-file")
        self.internalPort = try section.integer("internal-port")
        let tls = [("tls-certificate-file", self.tlsCertificateFile), ("tls-key-file", self.tlsKeyFile), ("tls-ca-file", self.tlsCAFile)]
        if self.isEnabled, tls.contains(where: { $0.1 != nil }), let missing = tls.first(where: { $0.1 == nil }) {
            throw section.error(missing.0, "is required with the other cluster.tls-* keys: mutual TLS needs this node's certificate, its key and the CA")
        }
        if self.isEnabled, self.usesTLS, let url = self.advertiseURL, !url.lowercased().hasPrefix("https://") {
            throw section.error("advertise-url", "'\(URLRedaction.redact(url))' must be an https URL naming cluster.internal-port: with mutual TLS the other nodes reach this one there")
        }
    }
}

extension HeraldConfiguration {
    /// `cluster.node-id`, or the host name and `server.port`.
    public var nodeID: String {
        if let id = self.cluster.nodeID { return id }
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "herald"
        return "\(host)-\(self.server.port)"
    }

    /// `cluster.advertise-url`, or the server's own address (the internal TLS listener's, with
    /// mutual TLS).
    public var advertiseURL: String {
        if let url = self.cluster.advertiseURL { return url }
        if self.cluster.usesTLS { return "https://\(self.server.host):\(self.cluster.internalPort)" }
        return "http://\(self.server.host):\(self.server.port)"
    }
}

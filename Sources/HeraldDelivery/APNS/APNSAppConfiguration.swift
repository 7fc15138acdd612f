public import HeraldConfig

/// An app's APNs section, `apps.<app>.apns.*`: a signing key (or a client certificate), the
/// topic and the environment.
public struct APNSAppConfiguration: ProviderConfiguration {
    public enum Environment: String, Sendable, Hashable, CaseIterable {
        case production
        case sandbox
    }

    public var keyFile: String?
    public var keyID: String?
    public var teamID: String?
    /// Certificate authentication, the alternative to a signing key: PEM client certificate and
    /// its private key.
    public var certificateFile: String?
    public var certificateKeyFile: String?
    public var topic: String?
    public var environment: Environment = .production
    /// Overrides the environment's host, for a test peer such as `herald-dev mock-apns`.
    public var host: String?
    public var port: Int = 443
    /// PEM certificates to trust instead of the system roots (for a test peer).
    public var caFile: String?
    public var connections: Int = 2
    /// Overrides the environment's channel management host (iOS 18 broadcast channels), for a
    /// test peer.
    public var channelHost: String?
    /// Overrides the environment's channel management port (2196 production, 2195 sandbox).
    public var channelPort: Int?

    /// Its device connections, and the one to the channel management host.
    public var descriptors: Int { self.connections + 1 }

    public init() {}

    public static let section = "apns"

    public var effectiveHost: String {
        self.host ?? (self.environment == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com")
    }

    /// Where channels are created, listed, read and deleted (apns-live-activities.md §2.2);
    /// broadcasts go to the device host.
    public var effectiveChannelHost: String {
        self.channelHost ?? (self.environment == .production ? "api-manage-broadcast.push.apple.com" : "api-manage-broadcast.sandbox.push.apple.com")
    }

    public var effectiveChannelPort: Int {
        self.channelPort ?? (self.environment == .production ? 2196 : 2195)
    }

    public var isConfigured: Bool {
        [self.keyFile, self.keyID, self.teamID, self.certificateFile, self.certificateKeyFile].contains { $0 != nil }
    }

    public var summary: String {
        let credential =
            self.certificateFile.map { "certificate \($0)" } ?? "key \(self.keyID ?? "?"), team \(self.teamID ?? "?")"
        return "APNs \(self.environment.rawValue) at \(self.effectiveHost):\(self.port), \(credential), topic \(self.topic ?? "none")"
    }

    public static let keys: [ConfigurationKey] = [
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
            .oneOf(Environment.allCases.map(\.rawValue)),
            default: "production",
            help: "`production` (api.push.apple.com) or `sandbox` (api.sandbox.push.apple.com)."
        ),
        ConfigurationKey(
            "apps.<app>.apns.host",
            .string,
            default: nil,
            help: "APNs host instead of the environment's, for a test peer such as `herald-dev mock-apns`."
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
            "apps.<app>.apns.channel-host",
            .string,
            default: nil,
            help: "Channel management host (iOS 18 broadcast channels) instead of the environment's (api-manage-broadcast.push.apple.com, or .sandbox.), for a test peer."
        ),
        ConfigurationKey(
            "apps.<app>.apns.channel-port",
            .port,
            default: nil,
            help: "Channel management port instead of the environment's (2196 production, 2195 sandbox)."
        ),
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
    ]

    public init(reading section: ConfigurationSection) throws {
        self.keyFile = try section.rawString("key-file")
        self.keyID = try section.rawString("key-id")
        self.teamID = try section.rawString("team-id")
        self.certificateFile = try section.rawString("certificate-file")
        self.certificateKeyFile = try section.rawString("certificate-key-file")
        self.topic = try section.string("topic")
        self.environment = try section.choice("environment", as: Environment.self)
        self.host = try section.string("host")
        self.port = try section.integer("port")
        guard self.port > 0 else { throw section.error("port", "'0' is not a port number from 1 to 65535") }
        self.caFile = try section.string("ca-file")
        self.connections = try section.integer("connections")
        self.channelHost = try section.string("channel-host")
        if section.isSet("channel-port") {
            let port = try section.integer("channel-port")
            guard port > 0 else { throw section.error("channel-port", "'0' is not a port number from 1 to 65535") }
            self.channelPort = port
        }
        guard self.isConfigured else { return }
        let app = section.prefix
        if self.certificateFile != nil || self.certificateKeyFile != nil {
            guard self.keyFile == nil else {
                throw ConfigurationError(.invalidValue, "configuration keys \(app).key-file and \(app).certificate-file are alternatives; set one")
            }
            for (name, value) in [("certificate-file", self.certificateFile), ("certificate-key-file", self.certificateKeyFile)] where value?.isEmpty ?? true {
                throw ConfigurationError(.invalidValue, "configuration key \(app).\(name) is required for the app's APNs certificate")
            }
        } else {
            for (name, value) in [("key-file", self.keyFile), ("key-id", self.keyID), ("team-id", self.teamID)] where value?.isEmpty ?? true {
                throw ConfigurationError(.invalidValue, "configuration key \(app).\(name) is required for the app's APNs credentials")
            }
        }
    }
}

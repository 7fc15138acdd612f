public import HeraldConfig

/// An app's FCM section, `apps.<app>.fcm.*`: the Firebase project's service account.
public struct FCMAppConfiguration: ProviderConfiguration {
    /// The service-account JSON key file of the Firebase project.
    public var serviceAccountFile: String?
    /// Overrides the service account's `project_id` in the send path.
    public var projectID: String?
    /// Overrides fcm.googleapis.com, for a test peer such as `herald-dev mock-fcm`.
    public var host: String?
    public var port: Int = 443
    /// PEM certificates to trust instead of the system roots, for FCM and its token endpoint (a
    /// test peer).
    public var caFile: String?
    public var connections: Int = 2

    /// The connections, and one for the OAuth token client.
    public var descriptors: Int { self.connections + 1 }

    public init() {}

    public static let section = "fcm"

    public var effectiveHost: String { self.host ?? "fcm.googleapis.com" }

    public var isConfigured: Bool { self.serviceAccountFile != nil || self.projectID != nil }

    public var summary: String {
        "FCM at \(self.effectiveHost):\(self.port), service account \(self.serviceAccountFile ?? "?")"
    }

    public static let keys: [ConfigurationKey] = [
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
            help: "FCM host instead of fcm.googleapis.com, for a test peer such as `herald-dev mock-fcm`."
        ),
        ConfigurationKey("apps.<app>.fcm.port", .port, default: "443", help: "FCM port."),
        ConfigurationKey(
            "apps.<app>.fcm.ca-file",
            .string,
            default: nil,
            help: "PEM certificates to trust instead of the system's, for FCM and the token endpoint of a test peer."
        ),
        ConfigurationKey("apps.<app>.fcm.connections", .integer(1...64), default: "2", help: "HTTP/2 connections kept to FCM for this app."),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.serviceAccountFile = try section.rawString("service-account-file")
        self.projectID = try section.string("project-id")
        if let projectID = self.projectID, !FCMProvider.isValidProjectID(projectID) {
            throw section.error("project-id", "'\(projectID)' is not a Google Cloud project id or number")
        }
        self.host = try section.string("host")
        self.port = try section.integer("port")
        guard self.port > 0 else { throw section.error("port", "'0' is not a port number from 1 to 65535") }
        self.caFile = try section.string("ca-file")
        self.connections = try section.integer("connections")
        if self.isConfigured, self.serviceAccountFile?.isEmpty ?? true {
            throw ConfigurationError(.invalidValue, "configuration key \(section.prefix).service-account-file is required for the app's FCM credentials")
        }
    }
}

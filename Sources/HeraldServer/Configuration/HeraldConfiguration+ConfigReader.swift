import Configuration
import HeraldStore
import Foundation
import Logging
import SystemPackage
import Yams

extension HeraldConfiguration {
    /// Reads, layers and validates the configuration. Throws `ConfigurationError` naming the key
    /// for an unknown key, a malformed file or a bad value: start-up must stop on any of them.
    public static func load(from sources: ConfigurationSources) async throws -> EffectiveConfiguration {
        let templates = Self.keys.filter(\.isTemplate)
        let (file, fileApps) = try Self.configurationFile(sources)
        let (environment, environmentApps) = try Self.knownEnvironment(sources.environment)
        let flagApps = try Self.checkFlags(sources.arguments)
        let apps = fileApps.union(environmentApps).union(flagApps)
        if let bad = apps.sorted().first(where: { !ConfigurationKey.isValidAppID($0) }) {
            throw ConfigurationError(.invalidValue, "app id '\(bad)' must be lower-case letters, digits and single dashes")
        }
        // Every plain key, and every template once per app the sources name.
        let keys = Self.keys.filter { !$0.isTemplate } + apps.sorted().flatMap { app in templates.map { $0.instantiated(for: app) } }

        var providers: [any ConfigProvider] = [
            CommandLineArgumentsProvider(
                arguments: ["herald"] + sources.arguments,
                secretsSpecifier: .specific(Set(keys.filter(\.isSecret).map(\.flag)))
            ),
            EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .specific(Set(keys.filter(\.isSecret).map(\.environmentVariable)))
            ).prefixKeys(with: "herald"),
        ]
        var sourceNames = ["flag", "environment"]
        if let file {
            providers.append(
                try await FileProvider<YAMLSnapshot>(
                    parsingOptions: .init(secretsSpecifier: .specific(Set(keys.filter(\.isSecret).map(\.name)))),
                    filePath: FilePath(file),
                    allowMissing: false
                )
            )
            sourceNames.append("file")
        }
        var defaults: [AbsoluteConfigKey: ConfigValue] = [:]
        for key in keys {
            if let value = key.defaultValue {
                defaults[AbsoluteConfigKey(key.components)] = ConfigValue(.string(value), isSecret: key.isSecret)
            }
        }
        providers.append(InMemoryProvider(name: "defaults", values: defaults))
        sourceNames.append("default")

        let audit = SourceAudit()
        let reader = ConfigReader(providers: providers, accessReporter: audit)
        var configuration = HeraldConfiguration()
        var entries: [EffectiveConfiguration.Entry] = []
        for key in keys {
            let raw = reader.string(forKey: ConfigKey(key.components), isSecret: key.isSecret)
            let source: String
            switch audit.origin(of: key.components) {
            case .failed(let index, let error):
                let origin = Self.describe(sourceNames[index], key: key, file: file)
                throw ConfigurationError(.invalidValue, "configuration key \(key.name) (\(origin)) cannot be read: \(error)")
            case .found(let index):
                source = Self.describe(sourceNames[index], key: key, file: file)
            case .missing:
                source = "unset"
            }
            if let raw {
                try configuration.set(key, to: raw, source: source)
            }
            let display = raw.map { key.isSecret ? "******" : $0 } ?? "(unset)"
            entries.append(.init(key: key, displayValue: display, source: source))
        }
        try configuration.validate()
        return EffectiveConfiguration(configuration: configuration, entries: entries, filePath: file)
    }

    private static func describe(_ source: String, key: ConfigurationKey, file: String?) -> String {
        switch source {
        case "flag": "flag \(key.flag)"
        case "environment": "environment variable \(key.environmentVariable)"
        case "file": "file \(file ?? "?")"
        default: source
        }
    }

    /// The file to read, after checking it holds only known keys, and the apps it configures;
    /// `nil` when there is none or it is empty.
    private static func configurationFile(_ sources: ConfigurationSources) throws -> (String?, Set<String>) {
        let path: String
        if let explicit = sources.filePath {
            guard FileManager.default.fileExists(atPath: explicit) else {
                throw ConfigurationError(.unreadableFile, "configuration file \(explicit) does not exist")
            }
            path = explicit
        } else if FileManager.default.fileExists(atPath: sources.defaultFilePath) {
            path = sources.defaultFilePath
        } else {
            return (nil, [])
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(.unreadableFile, "configuration file \(path) cannot be read: \(error.localizedDescription)")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(.unreadableFile, "configuration file \(path) is not valid YAML: \(error)")
        }
        guard let root else { return (nil, []) }
        guard let mapping = root.mapping else {
            throw ConfigurationError(.unreadableFile, "configuration file \(path) must be a mapping of keys, like `server:\\n  port: 8080`")
        }
        let known = Set(Self.keys.filter { !$0.isTemplate }.map(\.name))
        let templates = Self.keys.filter(\.isTemplate)
        let sections = Set(Self.keys.compactMap { $0.name.split(separator: ".").first.map(String.init) })
        var apps = Set<String>()
        var unknown: [String] = []
        func walk(_ mapping: Node.Mapping, prefix: String) throws {
            for (keyNode, value) in mapping {
                let name = prefix + (keyNode.string ?? "\(keyNode)")
                if let child = value.mapping {
                    try walk(child, prefix: name + ".")
                } else if sections.contains(name) {
                    throw ConfigurationError(.invalidValue, "configuration key \(name) (file \(path)) must be a mapping, like `\(name):` with indented keys below it")
                } else if let app = templates.lazy.compactMap({ $0.appID(inName: name) }).first {
                    guard value.scalar != nil else {
                        throw ConfigurationError(.invalidValue, "configuration key \(name) (file \(path)) must be a single value")
                    }
                    apps.insert(app)
                } else if !known.contains(name) {
                    unknown.append(name)
                } else if value.scalar == nil {
                    throw ConfigurationError(.invalidValue, "configuration key \(name) (file \(path)) must be a single value")
                }
            }
        }
        try walk(mapping, prefix: "")
        if !unknown.isEmpty {
            throw ConfigurationError(
                .unknownKey,
                "unknown configuration key\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")) in file \(path); see docs/configuration.md"
            )
        }
        return (path, apps)
    }

    /// The `HERALD_*` variables, refusing any that names no key, and the apps they configure.
    private static func knownEnvironment(_ environment: [String: String]) throws -> ([String: String], Set<String>) {
        let known = Set(Self.keys.filter { !$0.isTemplate }.map(\.environmentVariable))
        let templates = Self.keys.filter(\.isTemplate)
        let ours = environment.filter { $0.key.hasPrefix("HERALD_") && $0.key != ConfigurationSources.fileVariable }
        var apps = Set<String>()
        for variable in ours.keys where !known.contains(variable) {
            if let app = templates.lazy.compactMap({ $0.appID(inEnvironmentVariable: variable) }).first { apps.insert(app) }
        }
        let unknown = ours.keys.filter { variable in
            !known.contains(variable) && !templates.contains { $0.appID(inEnvironmentVariable: variable) != nil }
        }.sorted()
        if !unknown.isEmpty {
            throw ConfigurationError(
                .unknownKey,
                "unknown environment variable\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")); see docs/configuration.md"
            )
        }
        return (ours, apps)
    }

    /// Every `--flag` must name a key, and every bare word must be the value of the flag before
    /// it. Returns the apps the flags configure.
    private static func checkFlags(_ arguments: [String]) throws -> Set<String> {
        let known = Set(Self.keys.filter { !$0.isTemplate }.map(\.flag))
        let templates = Self.keys.filter(\.isTemplate)
        var apps = Set<String>()
        var expectingValue = false
        for argument in arguments {
            if argument.hasPrefix("--") {
                let name = String(argument.prefix { $0 != "=" })
                if !known.contains(name) {
                    guard let app = templates.lazy.compactMap({ $0.appID(inFlag: name) }).first else {
                        throw ConfigurationError(.unknownKey, "unknown option \(name); see herald serve --help and docs/configuration.md")
                    }
                    apps.insert(app)
                }
                expectingValue = !argument.contains("=")
            } else if expectingValue {
                expectingValue = false
            } else {
                throw ConfigurationError(.invalidValue, "unexpected argument '\(argument)'")
            }
        }
        return apps
    }

    private mutating func set(_ key: ConfigurationKey, to raw: String, source: String) throws {
        func invalid(_ expectation: String) -> ConfigurationError {
            let shown = key.isSecret ? "" : " '\(raw)'"
            return ConfigurationError(.invalidValue, "configuration key \(key.name) (\(source)):\(shown) is not \(expectation)")
        }
        func size() throws -> Int {
            guard let value = ConfigurationValueParsing.size(raw) else { throw invalid("a size such as 1073741824 or 1GiB") }
            return value
        }
        if let template = key.template, let app = key.app {
            try self.set(template: template, app: app, raw: raw, invalid: invalid)
            return
        }
        switch key.name {
        case "server.host":
            guard !raw.trimmingSpaces.isEmpty else { throw invalid("a host name or address") }
            self.server.host = raw.trimmingSpaces
        case "server.port":
            guard let port = ConfigurationValueParsing.port(raw) else { throw invalid("a port number from 0 to 65535") }
            self.server.port = port
        case "server.shutdown-timeout":
            guard let timeout = ConfigurationValueParsing.duration(raw) else { throw invalid("a duration such as 30s or 500ms") }
            self.server.shutdownTimeout = timeout
        case "store.path":
            guard !raw.trimmingSpaces.isEmpty else { throw invalid("a directory path") }
            self.store.path = raw.trimmingSpaces
        case "store.map-size":
            self.store.environment.mapSize = try size()
        case "store.max-map-size":
            self.store.environment.maxMapSize = try size()
        case "store.durable":
            guard let value = ConfigurationValueParsing.bool(raw) else { throw invalid("true or false") }
            self.store.environment.durable = value
        case "log.level":
            guard let level = Logger.Level(rawValue: raw.trimmingSpaces.lowercased()) else {
                throw invalid("one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.log.level = level
        case "log.format":
            guard let format = Log.Format(rawValue: raw.trimmingSpaces.lowercased()) else {
                throw invalid("one of \(Log.Format.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.log.format = format
        case "delivery.default-app":
            self.delivery.defaultApp = raw.trimmingSpaces
        case "api.bearer-token":
            guard !raw.isEmpty else { throw invalid("a non-empty token") }
            self.api.bearerToken = raw
        case "gorush.sync":
            guard let value = ConfigurationValueParsing.bool(raw) else { throw invalid("true or false") }
            self.gorush.sync = value
        case "gorush.queue-limit":
            guard let value = Int(raw.trimmingSpaces), value >= 1 else { throw invalid("a positive number") }
            self.gorush.queueLimit = value
        case "feedback.url":
            let value = raw.trimmingSpaces
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw invalid("an http or https URL")
            }
            self.feedback.url = value
        case "feedback.bearer-token":
            guard !raw.isEmpty else { throw invalid("a non-empty token") }
            self.feedback.bearerToken = raw
        case "feedback.timeout":
            guard let timeout = ConfigurationValueParsing.duration(raw), timeout > .zero else { throw invalid("a duration such as 10s") }
            self.feedback.timeout = timeout
        case "feedback.max-attempts":
            guard let value = Int(raw.trimmingSpaces), (1...100).contains(value) else { throw invalid("a number from 1 to 100") }
            self.feedback.maximumAttempts = value
        case "feedback.queue-limit":
            guard let value = Int(raw.trimmingSpaces), value >= 1 else { throw invalid("a positive number") }
            self.feedback.queueLimit = value
        case "status.identity-key-file":
            guard !raw.trimmingSpaces.isEmpty else { throw invalid("a file path") }
            self.status.identityKeyFile = raw.trimmingSpaces
        case "status.dedup-window":
            guard let window = ConfigurationValueParsing.duration(raw), window >= .seconds(1) else { throw invalid("a duration of at least 1s, such as 30d") }
            self.status.deduplicationWindow = window
        case "status.gorush-url":
            let value = raw.trimmingSpaces
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw invalid("an http or https URL")
            }
            self.status.gorushURL = value
        case "status.queue-limit":
            guard let value = Int(raw.trimmingSpaces), value >= 1 else { throw invalid("a positive number") }
            self.status.queueLimit = value
        case "status.nwaku-url":
            let value = raw.trimmingSpaces
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw invalid("an http or https URL")
            }
            self.status.nwakuURL = value
        case "status.pubsub-topic":
            let value = raw.trimmingSpaces
            guard value.hasPrefix("/waku/2/") else { throw invalid("a Waku pubsub topic such as /waku/2/rs/16/32") }
            self.status.pubsubTopic = value
        case "metrics.bearer-token":
            guard !raw.isEmpty else { throw invalid("a non-empty token") }
            self.metrics.bearerToken = raw
        default:
            throw ConfigurationError(.unknownKey, "configuration key \(key.name) is listed but not handled")
        }
    }

    private mutating func set(template: String, app: String, raw: String, invalid: (String) -> ConfigurationError) throws {
        let value = raw.trimmingSpaces
        let optional = value.isEmpty ? nil : value
        func port() throws -> Int {
            guard let port = ConfigurationValueParsing.port(value), port > 0 else { throw invalid("a port number from 1 to 65535") }
            return port
        }
        func connections() throws -> Int {
            guard let count = Int(value), (1...64).contains(count) else { throw invalid("a number of connections from 1 to 64") }
            return count
        }
        var settings = self.apps[app] ?? App()
        var apns = settings.apns ?? App.APNS()
        var fcm = settings.fcm ?? App.FCM()
        switch template {
        case "apps.<app>.apns.key-file": apns.keyFile = value
        case "apps.<app>.apns.key-id": apns.keyID = value
        case "apps.<app>.apns.team-id": apns.teamID = value
        case "apps.<app>.apns.certificate-file": apns.certificateFile = value
        case "apps.<app>.apns.certificate-key-file": apns.certificateKeyFile = value
        case "apps.<app>.apns.topic": apns.topic = optional
        case "apps.<app>.apns.environment":
            guard let environment = App.APNS.Environment(rawValue: value.lowercased()) else { throw invalid("production or sandbox") }
            apns.environment = environment
        case "apps.<app>.apns.host": apns.host = optional
        case "apps.<app>.apns.port": apns.port = try port()
        case "apps.<app>.apns.ca-file": apns.caFile = optional
        case "apps.<app>.apns.connections": apns.connections = try connections()
        case "apps.<app>.fcm.service-account-file": fcm.serviceAccountFile = value
        case "apps.<app>.fcm.project-id": fcm.projectID = optional
        case "apps.<app>.fcm.host": fcm.host = optional
        case "apps.<app>.fcm.port": fcm.port = try port()
        case "apps.<app>.fcm.ca-file": fcm.caFile = optional
        case "apps.<app>.fcm.connections": fcm.connections = try connections()
        default:
            throw ConfigurationError(.unknownKey, "configuration key template \(template) is listed but not handled")
        }
        settings.apns = apns
        settings.fcm = fcm
        self.apps[app] = settings
    }

    /// Checks that hold between keys. A provider section holding only defaults is dropped, so an
    /// app has APNs, FCM or both exactly when their credentials are configured.
    mutating func validate() throws {
        for (app, var settings) in self.apps.sorted(by: { $0.key < $1.key }) {
            if let apns = settings.apns, !apns.isConfigured { settings.apns = nil }
            if let fcm = settings.fcm, !fcm.isConfigured { settings.fcm = nil }
            self.apps[app] = settings
            if let apns = settings.apns {
                if apns.certificateFile != nil || apns.certificateKeyFile != nil {
                    guard apns.keyFile == nil else {
                        throw ConfigurationError(
                            .invalidValue,
                            "configuration keys apps.\(app).apns.key-file and apps.\(app).apns.certificate-file are alternatives; set one"
                        )
                    }
                    for (name, value) in [("certificate-file", apns.certificateFile), ("certificate-key-file", apns.certificateKeyFile)] where value?.isEmpty ?? true {
                        throw ConfigurationError(.invalidValue, "configuration key apps.\(app).apns.\(name) is required for the app's APNs certificate")
                    }
                } else {
                    for (name, value) in [("key-file", apns.keyFile), ("key-id", apns.keyID), ("team-id", apns.teamID)] where value?.isEmpty ?? true {
                        throw ConfigurationError(.invalidValue, "configuration key apps.\(app).apns.\(name) is required for the app's APNs credentials")
                    }
                }
            }
            if let fcm = settings.fcm, fcm.serviceAccountFile?.isEmpty ?? true {
                throw ConfigurationError(.invalidValue, "configuration key apps.\(app).fcm.service-account-file is required for the app's FCM credentials")
            }
            if settings.apns == nil, settings.fcm == nil {
                throw ConfigurationError(
                    .invalidValue,
                    "app '\(app)' has no provider: set apps.\(app).apns.key-file (or certificate-file) or apps.\(app).fcm.service-account-file"
                )
            }
        }
        if let defaultApp = self.delivery.defaultApp, self.apps[defaultApp] == nil {
            throw ConfigurationError(
                .invalidValue,
                "configuration key delivery.default-app names '\(defaultApp)', which is not a configured app (\(self.apps.keys.sorted().joined(separator: ", ")))"
            )
        }
        if self.api.bearerToken == nil, !Self.isLoopback(self.server.host) {
            throw ConfigurationError(
                .invalidValue,
                "configuration key api.bearer-token is required when server.host (\(self.server.host)) is not a loopback address: the push API must not be open to the network"
            )
        }
        if self.store.environment.mapSize > self.store.environment.maxMapSize {
            throw ConfigurationError(
                .invalidValue,
                "configuration key store.map-size (\(self.store.environment.mapSize)) is larger than store.max-map-size (\(self.store.environment.maxMapSize))"
            )
        }
    }
}

extension HeraldConfiguration {
    /// 127.0.0.0/8, ::1 or the name `localhost`; parsed, so `127.example.com` is not loopback.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }
}

extension ConfigurationKey {
    var components: [String] { self.name.split(separator: ".").map(String.init) }
}

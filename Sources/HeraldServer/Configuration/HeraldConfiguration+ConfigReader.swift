import HeraldCore
import Configuration
public import HeraldConfig
import HeraldDelivery
public import HeraldFrontDoor
import HeraldStore
import Foundation
import Logging
import SystemPackage
import Yams

extension HeraldConfiguration {
    /// Reads, layers and validates the configuration. Throws `ConfigurationError` naming the key
    /// for an unknown key, a malformed file or a bad value: start-up must stop on any of them.
    /// `frontDoors` are the front doors whose sections are read (the node's list unless a test
    /// adds one).
    public static func load(
        from sources: ConfigurationSources,
        frontDoors: [any FrontDoor.Type] = HeraldNode.frontDoors
    ) async throws -> EffectiveConfiguration {
        let catalogue = Self.keys(frontDoors: frontDoors)
        let templates = catalogue.filter(\.isTemplate)
        let (file, fileApps) = try Self.configurationFile(sources, keys: catalogue)
        let (environment, environmentApps) = try Self.knownEnvironment(sources.environment, keys: catalogue)
        let flagApps = try Self.checkFlags(sources.arguments, keys: catalogue)
        let apps = fileApps.union(environmentApps).union(flagApps)
        if let bad = apps.sorted().first(where: { !ConfigurationKey.isValidAppID($0) }) {
            throw ConfigurationError(.invalidValue, "app id '\(bad)' must be lower-case letters, digits and single dashes")
        }
        // Every plain key, and every template once per app the sources name.
        let keys = catalogue.filter { !$0.isTemplate } + apps.sorted().flatMap { app in templates.map { $0.instantiated(for: app) } }

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
        var entries: [EffectiveConfiguration.Entry] = []
        var sources: [String: String] = [:]
        for key in keys {
            let raw: String?
            if case .list = key.kind {
                raw = reader.stringArray(forKey: ConfigKey(key.components), isSecret: key.isSecret)?.joined(separator: ",")
                    ?? reader.string(forKey: ConfigKey(key.components), isSecret: key.isSecret)
            } else {
                raw = reader.string(forKey: ConfigKey(key.components), isSecret: key.isSecret)
            }
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
            sources[key.name] = source
            let display = raw.map { key.isSecret ? "******" : URLRedaction.redact($0) } ?? "(unset)"
            entries.append(.init(key: key, displayValue: display, source: source))
        }
        let section = { (prefix: String, app: String?) in
            ConfigurationSection(prefix: prefix, app: app, reader: reader, keys: keys, sources: sources)
        }
        var configuration = HeraldConfiguration()
        try configuration.readNodeSections { section($0, nil) }
        for app in apps.sorted() {
            var settings = App()
            for provider in HeraldNode.providers {
                try Self.read(provider, app: app, from: section, into: &settings)
            }
            guard !settings.providers.names.isEmpty else {
                throw ConfigurationError(
                    .invalidValue,
                    "app '\(app)' has no provider: set apps.\(app).apns.key-file (or certificate-file) or apps.\(app).fcm.service-account-file"
                )
            }
            configuration.apps[app] = settings
        }
        for frontDoor in frontDoors {
            try Self.read(frontDoor, from: section, into: &configuration.frontDoors)
        }
        try configuration.validate()
        return EffectiveConfiguration(configuration: configuration, entries: entries, filePath: file)
    }

    /// A provider section holding only defaults is dropped, so an app has a provider exactly when
    /// its credentials are configured.
    private static func read<Provider: ConfigurablePushProvider>(
        _ provider: Provider.Type,
        app: String,
        from section: (String, String?) -> ConfigurationSection,
        into settings: inout App
    ) throws {
        let value = try Provider.AppConfiguration(reading: section("apps.\(app).\(Provider.AppConfiguration.section)", app))
        if value.isConfigured { settings[Provider.AppConfiguration.self] = value }
    }

    private static func read<Door: FrontDoor>(
        _ frontDoor: Door.Type,
        from section: (String, String?) -> ConfigurationSection,
        into sections: inout ConfigurationSections
    ) throws {
        sections[Door.Configuration.self] = try Door.Configuration(reading: section(Door.Configuration.section, nil))
    }

    private static func describe(_ source: String, key: ConfigurationKey, file: String?) -> String {
        switch source {
        case "flag": "flag \(key.flag)"
        case "environment": "environment variable \(key.environmentVariable)"
        case "file": "file \(file ?? "?")"
        default: source
        }
    }

    /// What is wrong and where, without the file's text, which Yams quotes and which holds
    /// secrets.
    static func yamlProblem(_ error: any Error) -> String {
        guard let error = error as? YamlError else { return "unreadable" }
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return "\(problem) at line \(mark.line), column \(mark.column)"
        case .reader(let problem, _, _, _):
            return problem
        case .duplicatedKeysInMapping(let duplicates, let context):
            return "duplicated keys \(duplicates.joined(separator: ", ")) at line \(context.mark.line)"
        default:
            return "unreadable"
        }
    }

    /// The file to read, after checking it holds only known keys, and the apps it configures;
    /// `nil` when there is none or it is empty.
    private static func configurationFile(_ sources: ConfigurationSources, keys: [ConfigurationKey]) throws -> (String?, Set<String>) {
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
        let text = try ConfigurationFile.read(path, key: "--config (HERALD_CONFIG)")
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(.unreadableFile, "configuration file \(path) is not valid YAML: \(Self.yamlProblem(error))")
        }
        guard let root else { return (nil, []) }
        guard let mapping = root.mapping else {
            throw ConfigurationError(.unreadableFile, "configuration file \(path) must be a mapping of keys, like `server:\\n  port: 8080`")
        }
        let known = Set(keys.filter { !$0.isTemplate }.map(\.name))
        let templates = keys.filter(\.isTemplate)
        let sections = Set(keys.compactMap { $0.name.split(separator: ".").first.map(String.init) })
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
    private static func knownEnvironment(_ environment: [String: String], keys: [ConfigurationKey]) throws -> ([String: String], Set<String>) {
        let known = Set(keys.filter { !$0.isTemplate }.map(\.environmentVariable))
        let templates = keys.filter(\.isTemplate)
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
    private static func checkFlags(_ arguments: [String], keys: [ConfigurationKey]) throws -> Set<String> {
        let known = Set(keys.filter { !$0.isTemplate }.map(\.flag))
        let templates = keys.filter(\.isTemplate)
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

    /// Checks that hold between keys of the node's sections.
    mutating func validate() throws {
        if self.cluster.isEnabled {
            // Derived from a wildcard address or a port picked at start, they would name no
            // reachable node, or the same id for every node on the host.
            let wildcard = ["0.0.0.0", "::", "[::]"].contains(self.server.host)
            if self.cluster.advertiseURL == nil, wildcard || self.server.port == 0 {
                throw ConfigurationError(
                    .invalidValue,
                    "configuration key cluster.advertise-url is required when server.host is \(self.server.host) or server.port is 0: other nodes must be told where to reach this one"
                )
            }
            if self.cluster.nodeID == nil, self.server.port == 0 {
                throw ConfigurationError(.invalidValue, "configuration key cluster.node-id is required when server.port is 0: the default id names the port")
            }
        }
        if let defaultApp = self.delivery.defaultApp, self.apps[defaultApp] == nil {
            throw ConfigurationError(
                .invalidValue,
                "configuration key delivery.default-app names '\(defaultApp)', which is not a configured app (\(self.apps.keys.sorted().joined(separator: ", ")))"
            )
        }
        if self.api.bearerToken == nil, !ConfigurationValueParsing.isLoopback(self.server.host) {
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
    /// Every key a node reads: its own, each provider's (templates under `apps.<app>.`) and each
    /// front door's; the source of `--print-config`, the unknown-key check and
    /// docs/configuration.md.
    public static var keys: [ConfigurationKey] { Self.keys(frontDoors: HeraldNode.frontDoors) }

    public static func keys(frontDoors: [any FrontDoor.Type]) -> [ConfigurationKey] {
        func providerKeys<Provider: ConfigurablePushProvider>(_ type: Provider.Type) -> [ConfigurationKey] { Provider.AppConfiguration.keys }
        func frontDoorKeys<Door: FrontDoor>(_ type: Door.Type) -> [ConfigurationKey] { Door.Configuration.keys }
        return Self.nodeKeys + HeraldNode.providers.flatMap { providerKeys($0) } + frontDoors.flatMap { frontDoorKeys($0) }
    }
}

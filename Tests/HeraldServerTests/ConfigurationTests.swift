import Foundation
import HeraldConfig
import HeraldCore
import HeraldDelivery
import HeraldServer
import HeraldStore
import Logging
import HeraldTesting
import Testing

@Suite struct ConfigurationTests {
    func load(
        _ arguments: [String] = [],
        environment: [String: String] = [:],
        file: String? = nil,
        filePath: String? = nil
    ) async throws -> EffectiveConfiguration {
        try await withTemporaryDirectory { directory in
            var path = filePath
            if let file {
                path = directory + "/herald.yaml"
                try file.write(toFile: path!, atomically: true, encoding: .utf8)
            }
            return try await HeraldConfiguration.load(
                from: ConfigurationSources(arguments: arguments, environment: environment, filePath: path, defaultFilePath: directory + "/absent.yaml")
            )
        }
    }

    func error(_ arguments: [String] = [], environment: [String: String] = [:], file: String? = nil) async -> ConfigurationError? {
        do {
            _ = try await self.load(arguments, environment: environment, file: file)
            return nil
        } catch let error as ConfigurationError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func noConfigurationGivesTheSingleNodeDefaults() async throws {
        let configuration = try await load().configuration
        #expect(configuration.server.host == "127.0.0.1")
        #expect(configuration.server.port == 8080)
        #expect(configuration.store.path == "./herald-data")
        #expect(configuration.store.environment.mapSize == 1 << 30)
        #expect(configuration.store.environment.durable)
        #expect(configuration.log.level == .info)
        #expect(configuration.metrics.bearerToken == nil)
    }

    @Test func flagsBeatEnvironmentBeatsFileBeatsDefaults() async throws {
        let file = "server:\n  port: 1000\n  host: 10.0.0.1\nstore:\n  path: /from-file\nlog:\n  level: debug\n"
        let environment = ["HERALD_SERVER_PORT": "2000", "HERALD_STORE_PATH": "/from-env"]
        let effective = try await load(["--server-port", "3000", "--api-bearer-token", "t"], environment: environment, file: file)
        #expect(effective.configuration.server.port == 3000)
        #expect(effective.configuration.store.path == "/from-env")
        #expect(effective.configuration.server.host == "10.0.0.1")
        #expect(effective.configuration.log.level == .debug)
        #expect(effective.configuration.log.format == .text)
        let sources = Dictionary(uniqueKeysWithValues: effective.entries.map { ($0.key.name, $0.source) })
        #expect(sources["server.port"] == "flag --server-port")
        #expect(sources["store.path"] == "environment variable HERALD_STORE_PATH")
        #expect(sources["server.host"]?.hasPrefix("file ") == true)
        #expect(sources["log.format"] == "default")
    }

    @Test func everyKeyIsSettableByItsDocumentedVariableAndFlag() async throws {
        // delivery.default-app must name a configured app (appsAreFoundInTheFile… covers it),
        // cluster.etcd-endpoints needs cluster.secret (etcdEndpointsAreAList… covers it), and
        // webpush.vapid-keys needs webpush.vapid-audience (WebPushConfigurationTests covers it),
        // and silent.sandbox-app needs silent.app (SilentEndToEndTests set both).
        // Values with a syntax of their own.
        let samples = [
            "webpush.relays": "mast=mast",
            "webpush.vapid-audience": "https://relay.example",
            "silent.services": "extra=extra",
            "matrix.apps": "im.example.app=app",
            "server.operations-port": "9100",
        ]
        let skipped = ["delivery.default-app", "cluster.etcd-endpoints", "webpush.vapid-keys", "silent.sandbox-app"]
        for key in HeraldConfiguration.keys where !key.isTemplate && !skipped.contains(key.name) {
            let value = samples[key.name] ?? key.defaultValue ?? (key.name.hasSuffix("url") || key.name.hasSuffix("endpoints") ? "https://example.com/hook" : "token")
            let fromEnvironment = try await load(environment: [key.environmentVariable: value])
            #expect(fromEnvironment.entries.first { $0.key == key }?.source == "environment variable \(key.environmentVariable)")
            let fromFlag = try await load([key.flag, value])
            #expect(fromFlag.entries.first { $0.key == key }?.source == "flag \(key.flag)")
        }
    }

    @Test func listeningBeyondLoopbackRequiresAnAPIToken() async throws {
        let error = await error(["--server-host", "0.0.0.0"])
        #expect(error?.message.contains("api.bearer-token") == true)
        let configuration = try await load(["--server-host", "0.0.0.0", "--api-bearer-token", "s3cret"]).configuration
        #expect(configuration.api.bearerToken == "s3cret")
        #expect(try await load(["--server-host", "127.0.0.2"]).configuration.api.bearerToken == nil)
        let named = await self.error(["--server-host", "127.example.com"])
        #expect(named?.message.contains("api.bearer-token") == true, "a name starting 127. is not loopback")
    }

    @Test(arguments: ["   ", "\t", " s3cret", "s3cret ", "s3c\nret", "s3cr\u{7F}t", "sécret"])
    func bearerTokensThatCouldNeverMatchAreRefused(token: String) async throws {
        for key in ["api", "metrics", "feedback"] {
            let error = await error(environment: ["HERALD_\(key.uppercased())_BEARER_TOKEN": token])
            #expect(error?.message.contains("\(key).bearer-token") == true, "\(key) \(token.debugDescription)")
            #expect(error?.message.contains(token) == false, "a refused secret is not echoed")
        }
    }

    @Test func fcmOnlyAppsAndCertificateAppsAreAccepted() async throws {
        let file = """
            apps:
              android:
                fcm:
                  service-account-file: /keys/sa.json
                  connections: 3
              legacy:
                apns:
                  certificate-file: /keys/cert.pem
                  certificate-key-file: /keys/key.pem
            """
        let apps = try await load(file: file).configuration.apps
        #expect(apps["android"]?[APNSAppConfiguration.self] == nil)
        #expect(apps["android"]?[FCMAppConfiguration.self]?.serviceAccountFile == "/keys/sa.json")
        #expect(apps["android"]?[FCMAppConfiguration.self]?.connections == 3)
        #expect(apps["android"]?[FCMAppConfiguration.self]?.effectiveHost == "fcm.googleapis.com")
        #expect(apps["legacy"]?[FCMAppConfiguration.self] == nil)
        #expect(apps["legacy"]?[APNSAppConfiguration.self]?.certificateFile == "/keys/cert.pem")
    }

    @Test func webPushAppsReadTheirListsAndRefuseWhatCannotWork() async throws {
        let file = """
            apps:
              web:
                webpush:
                  vapid-key-file: /keys/vapid.key
                  vapid-subject: https://example.org/contact
                  allowed-endpoints: ntfy.example.org, *.Push.Apple.com
                  allowed-addresses: 10.0.0.0/8, fd00::/8
                  ttl: 15m
            """
        let web = try #require(try await load(file: file).configuration.apps["web"]?[WebPushAppConfiguration.self])
        #expect(web.allowedEndpoints.map(\.pattern) == ["ntfy.example.org", "*.push.apple.com"])
        #expect(web.allowedAddresses.map(\.description) == ["10.0.0.0/8", "fd00::/8"])
        #expect(web.ttl == 900)
        #expect(web.descriptors == 64)
        let defaults = try #require(try await load(file: "apps:\n  w:\n    webpush:\n      vapid-key-file: k\n      vapid-subject: mailto:a@b.c\n").configuration.apps["w"]?[WebPushAppConfiguration.self])
        #expect(defaults.allowedEndpoints.map(\.pattern).contains("fcm.googleapis.com"))
        #expect(defaults.allowedAddresses.isEmpty)
        let noSubject = await error(file: "apps:\n  w:\n    webpush:\n      vapid-key-file: k\n")
        #expect(noSubject?.message.contains("apps.w.webpush.vapid-subject") == true)
        let badSubject = await error(file: "apps:\n  w:\n    webpush:\n      vapid-key-file: k\n      vapid-subject: ops@example.org\n")
        #expect(badSubject?.message.contains("mailto:") == true)
        let badRange = await error(file: "apps:\n  w:\n    webpush:\n      vapid-key-file: k\n      vapid-subject: mailto:a@b.c\n      allowed-addresses: 10.0.0.0/99\n")
        #expect(badRange?.message.contains("apps.w.webpush.allowed-addresses") == true)
        let noKey = await error(file: "apps:\n  w:\n    webpush:\n      vapid-subject: mailto:a@b.c\n")
        #expect(noKey?.message.contains("apps.w.webpush.vapid-key-file") == true)
    }

    @Test func halfConfiguredProvidersNameTheMissingKey() async {
        let both = await error(file: "apps:\n  a:\n    apns:\n      key-file: k\n      key-id: K\n      team-id: T\n      certificate-file: c\n")
        #expect(both?.message.contains("alternatives") == true)
        let noKey = await error(file: "apps:\n  a:\n    apns:\n      certificate-file: c\n")
        #expect(noKey?.message.contains("apps.a.apns.certificate-key-file") == true)
        let noAccount = await error(file: "apps:\n  a:\n    fcm:\n      project-id: p\n")
        #expect(noAccount?.message.contains("apps.a.fcm.service-account-file") == true)
        let nothing = await error(file: "apps:\n  a:\n    fcm:\n      port: 443\n")
        #expect(nothing?.message.contains("has no provider") == true)
    }

    @Test func feedbackURLMustBeHTTP() async throws {
        let error = await error(["--feedback-url", "ftp://example.com/x"])
        #expect(error?.message.contains("feedback.url") == true)
        // A port no socket can have is refused at start, not at the first failed push.
        let port = await self.error(["--feedback-url", "http://127.0.0.1:99999/feedback"])
        #expect(port?.message.contains("feedback.url") == true)
        #expect(try await load(["--feedback-url", "http://127.0.0.1:65535/feedback"]).configuration.feedback.url == "http://127.0.0.1:65535/feedback")
    }

    @Test func flagWithEqualsSignIsAccepted() async throws {
        #expect(try await load(["--log-level=warning"]).configuration.log.level == .warning)
    }

    @Test func sizesTakeUnits() async throws {
        let configuration = try await load(["--store-map-size", "64MiB", "--store-max-map-size", "2g"]).configuration
        #expect(configuration.store.environment.mapSize == 64 << 20)
        #expect(configuration.store.environment.maxMapSize == 2 << 30)
    }

    @Test func unknownFileKeyStopsStartUpNamingIt() async {
        let error = await error(file: "server:\n  prot: 8080\n")
        #expect(error?.code == .unknownKey)
        #expect(error?.message.contains("server.prot") == true)
    }

    @Test func sectionWrittenAsAValueIsRefused() async {
        let error = await error(file: "server: 8080\n")
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("server") == true)
    }

    @Test func unknownEnvironmentVariableStopsStartUpNamingIt() async {
        let error = await error(environment: ["HERALD_SERVER_PROT": "1", "PATH": "/bin"])
        #expect(error?.code == .unknownKey)
        #expect(error?.message.contains("HERALD_SERVER_PROT") == true)
    }

    @Test func unknownFlagStopsStartUpNamingIt() async {
        let error = await error(["--server-prot", "1"])
        #expect(error?.code == .unknownKey)
        #expect(error?.message.contains("--server-prot") == true)
    }

    @Test(arguments: [
        ("HERALD_SERVER_PORT", "http", "server.port"),
        ("HERALD_SERVER_PORT", "70000", "server.port"),
        ("HERALD_STORE_DURABLE", "maybe", "store.durable"),
        ("HERALD_STORE_MAP_SIZE", "lots", "store.map-size"),
        ("HERALD_STORE_MAP_SIZE", "-1", "store.map-size"),
        ("HERALD_LOG_LEVEL", "loud", "log.level"),
        ("HERALD_LOG_FORMAT", "xml", "log.format"),
        ("HERALD_SERVER_HOST", " ", "server.host"),
    ])
    func badValueStopsStartUpNamingTheKeyAndItsSource(variable: String, value: String, key: String) async {
        let error = await error(environment: [variable: value])
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains(key) == true)
        #expect(error?.message.contains(variable) == true)
    }

    @Test func badValueInTheFileNamesTheFile() async {
        let error = await error(file: "store:\n  durable: sometimes\n")
        #expect(error?.message.contains("store.durable") == true)
        #expect(error?.message.contains("herald.yaml") == true)
    }

    @Test func mapSizeAboveTheMaximumIsRefused() async {
        let error = await error(["--store-map-size", "2GiB", "--store-max-map-size", "1GiB"])
        #expect(error?.message.contains("store.max-map-size") == true)
    }

    @Test func missingNamedFileIsAnError() async {
        await #expect(throws: ConfigurationError.self) { try await load(filePath: "/nonexistent/herald.yaml") }
    }

    @Test func emptyFileIsNoConfiguration() async throws {
        #expect(try await load(file: "# nothing yet\n").configuration.server.port == 8080)
    }

    @Test func malformedYAMLIsAnErrorNamingTheFile() async {
        let error = await error(file: "server:\n  port: \"8080\n")
        #expect(error?.code == .unreadableFile)
    }

    @Test func secretsAreMaskedInThePrintedConfiguration() async throws {
        let effective = try await load(file: "metrics:\n  bearer-token: hunter2\n")
        #expect(effective.configuration.metrics.bearerToken == "hunter2")
        let printed = effective.rendered()
        #expect(!printed.contains("hunter2"))
        #expect(printed.contains("metrics.bearer-token = ******"))
    }

    @Test func emptySecretIsRefused() async {
        let error = await error(environment: ["HERALD_METRICS_BEARER_TOKEN": ""])
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("metrics.bearer-token") == true)
    }

    @Test func documentedDefaultsAreTheConfigurationTypesDefaults() async throws {
        #expect(try await load().configuration == HeraldConfiguration())
    }

    @Test(arguments: [("30s", 30_000), ("500ms", 500), ("2m", 120_000), ("7", 7_000), ("0", 0)])
    func shutdownTimeoutTakesUnits(text: String, milliseconds: Int) async throws {
        #expect(try await load(["--server-shutdown-timeout", text]).configuration.server.shutdownTimeout == .milliseconds(milliseconds))
    }

    @Test func negativeShutdownTimeoutIsRefused() async {
        #expect(await error(["--server-shutdown-timeout=-1s"])?.message.contains("server.shutdown-timeout") == true)
    }

    @Test func appsAreFoundInTheFileTheEnvironmentAndFlags() async throws {
        let file = "apps:\n  wallet:\n    apns:\n      key-file: /k/wallet.p8\n      key-id: ABC123DEFG\n      team-id: DEF123GHIJ\n      topic: im.wallet\n"
        let environment = [
            "HERALD_APPS_CHAT_APP_APNS_KEY_FILE": "/k/chat.p8",
            "HERALD_APPS_CHAT_APP_APNS_KEY_ID": "K2",
            "HERALD_APPS_CHAT_APP_APNS_TEAM_ID": "T2",
        ]
        let effective = try await load(
            ["--apps-chat-app-apns-environment", "sandbox", "--apps-wallet-apns-connections=4", "--delivery-default-app", "wallet"],
            environment: environment,
            file: file
        )
        let apps = effective.configuration.apps
        #expect(Set(apps.keys) == ["wallet", "chat-app"])
        #expect(apps["wallet"]?[APNSAppConfiguration.self]?.keyID == "ABC123DEFG")
        #expect(apps["wallet"]?[APNSAppConfiguration.self]?.topic == "im.wallet")
        #expect(apps["wallet"]?[APNSAppConfiguration.self]?.connections == 4)
        #expect(apps["wallet"]?[APNSAppConfiguration.self]?.effectiveHost == "api.push.apple.com")
        #expect(apps["chat-app"]?[APNSAppConfiguration.self]?.environment == .sandbox)
        #expect(apps["chat-app"]?[APNSAppConfiguration.self]?.effectiveHost == "api.sandbox.push.apple.com")
        #expect(effective.configuration.delivery.defaultApp == "wallet")
        #expect(effective.rendered().contains("apps.chat-app.apns.key-id = K2"))
    }

    @Test func appMissingItsKeyIDStopsStartUpNamingIt() async {
        let error = await error(environment: ["HERALD_APPS_WALLET_APNS_KEY_FILE": "/k.p8", "HERALD_APPS_WALLET_APNS_TEAM_ID": "T"])
        #expect(error?.message.contains("apps.wallet.apns.key-id") == true)
    }

    @Test func unknownKeyUnderAnAppIsRefused() async {
        let error = await error(file: "apps:\n  wallet:\n    apns:\n      key-fil: x\n")
        #expect(error?.code == .unknownKey)
        #expect(error?.message.contains("apps.wallet.apns.key-fil") == true)
    }

    @Test func badAppIDIsRefused() async {
        let error = await error(file: "apps:\n  Wallet_1:\n    apns:\n      key-id: x\n")
        #expect(error?.message.contains("Wallet_1") == true)
    }

    @Test func defaultAppMustBeConfigured() async {
        let error = await error(["--delivery-default-app", "nope"])
        #expect(error?.message.contains("delivery.default-app") == true)
    }

    @Test func everyKeyIsDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/configuration.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let undocumented = HeraldConfiguration.keys.filter { !text.contains("| `\($0.name)` |") }
        #expect(undocumented.isEmpty, "undocumented keys: \(undocumented.map(\.name)); regenerate with `herald config reference`")
        #expect(
            text.contains(HeraldConfiguration.markdownReference()),
            "docs/configuration.md's table differs from `herald config reference`; paste its output into the document"
        )
    }

    @Test func etcdEndpointsAreAListFromEverySource() async throws {
        let expected = ["http://127.0.0.1:2379", "http://127.0.0.2:2379"]
        let secret = ["--cluster-secret", "s3cret"]
        #expect(try await load(["--cluster-etcd-endpoints", "http://127.0.0.1:2379,http://127.0.0.2:2379"] + secret).configuration.cluster.etcdEndpoints == expected)
        #expect(try await load(secret, environment: ["HERALD_CLUSTER_ETCD_ENDPOINTS": "http://127.0.0.1:2379, http://127.0.0.2:2379"]).configuration.cluster.etcdEndpoints == expected)
        #expect(try await load(secret, file: "cluster:\n  etcd-endpoints: http://127.0.0.1:2379,http://127.0.0.2:2379\n").configuration.cluster.etcdEndpoints == expected)
        #expect(try await load().configuration.cluster.isEnabled == false)
        let error = await error(["--cluster-etcd-endpoints", "http://127.0.0.1:2379,etcd:2379"] + secret)
        #expect(error?.message.contains("cluster.etcd-endpoints") == true)
        // Nodes authenticate what they forward to each other: no cluster without a secret.
        #expect(await self.error(["--cluster-etcd-endpoints", "http://127.0.0.1:2379"])?.message.contains("cluster.secret") == true)
    }

    @Test func aClusterNodeMustBeReachableAndNamedWhenItsAddressCannotSay() async {
        let cluster = ["--cluster-etcd-endpoints", "http://127.0.0.1:2379", "--cluster-secret", "s3cret"]
        let wildcard = await error(cluster + ["--server-host", "0.0.0.0", "--api-bearer-token", "t"])
        #expect(wildcard?.message.contains("cluster.advertise-url") == true)
        let anyPort = await error(cluster + ["--server-port", "0", "--cluster-advertise-url", "http://10.0.0.1:8080"])
        #expect(anyPort?.message.contains("cluster.node-id") == true)
        #expect(await error(cluster + ["--server-port", "0", "--cluster-advertise-url", "http://10.0.0.1:8080", "--cluster-node-id", "a"]) == nil)
    }

    @Test func mutualTLSBetweenNodesTakesAllItsKeysAndAnHTTPSAddress() async throws {
        let cluster = ["--cluster-etcd-endpoints", "http://127.0.0.1:2379", "--cluster-secret", "s3cret"]
        let tls = [
            "--cluster-tls-certificate-file", "/etc/herald/node.pem",
            "--cluster-tls-key-file", "/etc/herald/node-key.pem",
            "--cluster-tls-ca-file", "/etc/herald/ca.pem",
            "--cluster-internal-port", "8443",
        ]
        let loaded = try await load(cluster + tls).configuration
        #expect(loaded.cluster.usesTLS)
        #expect(loaded.advertiseURL == "https://127.0.0.1:8443")
        // Each file without the others says which is missing.
        for index in stride(from: 0, to: tls.count - 2, by: 2) {
            var partial = tls
            partial.removeSubrange(index..<index + 2)
            let key = String(tls[index].dropFirst(2)).replacingOccurrences(of: "cluster-", with: "cluster.", options: .anchored)
            #expect(await error(cluster + partial)?.message.contains(key) == true, "without \(key)")
        }
        let plain = await error(cluster + tls + ["--cluster-advertise-url", "http://10.0.0.1:8443"])
        #expect(plain?.message.contains("must be an https URL") == true)
    }
}

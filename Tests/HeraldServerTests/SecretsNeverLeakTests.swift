import Crypto
import Foundation
import HeraldTestTraits
import HeraldTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Known secrets fed to `herald serve` through every configuration path (file, environment,
/// flags) and both log formats at the most verbose level; every output a user or a log shipper
/// can see — the process's output, `/api/config`, `/metrics`, error bodies, `--print-config`,
/// configuration errors — is searched for them.
@Suite(.loadHeavy) struct SecretsNeverLeakTests {
    enum Source: String, CaseIterable { case file, environment, flags }

    /// The key material and credentials, and the text of each that must never be shown.
    struct Secrets {
        static let storeKey = "5a7c" + String(repeating: "e3", count: 30)
        let directory: String
        var settings: [(key: String, value: String)] = []
        var needles: [String] = []

        init(directory: String) throws {
            self.directory = directory
            let apnsKey = P256.Signing.PrivateKey().pemRepresentation
            let certificate = try TestCertificate()
            let account = try TestServiceAccount(projectID: "leak-test")
            let statusKey = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 1...255)) }.joined()
            let didcommSeed = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            try apnsKey.write(toFile: directory + "/wallet.p8", atomically: true, encoding: .utf8)
            try certificate.certificatePEM.write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
            try certificate.privateKeyPEM.write(toFile: directory + "/cert.key", atomically: true, encoding: .utf8)
            try account.json(tokenURI: "https://sa-user:SA-PASSWORD-9@127.0.0.1:9/token?key=SA-QUERY-10")
                .write(toFile: directory + "/sa.json", atomically: true, encoding: .utf8)
            try (statusKey + "\n").write(toFile: directory + "/status.key", atomically: true, encoding: .utf8)
            try (didcommSeed + "\n").write(toFile: directory + "/didcomm.key", atomically: true, encoding: .utf8)
            self.settings = [
                ("store.path", directory + "/data"),
                ("log.level", "trace"),
                ("api.bearer-token", "API-TOKEN-1"),
                ("metrics.bearer-token", "METRICS-TOKEN-2"),
                ("feedback.url", "https://hook-user:HOOK-PASSWORD-3@127.0.0.1:9/hook?api_key=HOOK-QUERY-4"),
                ("feedback.bearer-token", "FEEDBACK-TOKEN-5"),
                ("store.encryption-key", Self.storeKey),
                ("cluster.secret", "CLUSTER-SECRET-12"),
                ("status.identity-key-file", directory + "/status.key"),
                ("status.nwaku-url", "http://nwaku-user:NWAKU-PASSWORD-6@127.0.0.1:9/?key=NWAKU-QUERY-7"),
                ("aries.identity-key-file", directory + "/didcomm.key"),
                ("gorush.sync", "false"),
                ("apps.wallet.apns.key-file", directory + "/wallet.p8"),
                ("apps.wallet.apns.key-id", "ABCDEFGHIJ"),
                ("apps.wallet.apns.team-id", "KLMNOPQRST"),
                ("apps.wallet.apns.topic", "im.herald.wallet"),
                ("apps.wallet.apns.host", "127.0.0.1"),
                ("apps.wallet.apns.port", "9"),
                ("apps.wallet.fcm.service-account-file", directory + "/sa.json"),
                ("apps.wallet.fcm.host", "127.0.0.1"),
                ("apps.wallet.fcm.port", "9"),
                ("apps.chat.apns.certificate-file", directory + "/cert.pem"),
                ("apps.chat.apns.certificate-key-file", directory + "/cert.key"),
                ("apps.chat.apns.topic", "im.herald.chat"),
                ("apps.chat.apns.host", "127.0.0.1"),
                ("apps.chat.apns.port", "9"),
            ]
            func body(_ pem: String) -> [String] {
                pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map { String($0.prefix(24)) }
            }
            self.needles = [
                "API-TOKEN-1", "METRICS-TOKEN-2", "HOOK-PASSWORD-3", "HOOK-QUERY-4", "FEEDBACK-TOKEN-5", "NWAKU-PASSWORD-6",
                "NWAKU-QUERY-7", "SA-PASSWORD-9", "SA-QUERY-10", "CLUSTER-SECRET-12", Self.storeKey, String(Self.storeKey.prefix(16)), "PRIVATE KEY", statusKey, String(statusKey.prefix(16)), didcommSeed,
                String(didcommSeed.prefix(16)),
            ] + body(apnsKey) + body(certificate.privateKeyPEM) + body(account.privateKeyPEM)
        }

        func arguments(_ source: Source, format: String) throws -> (arguments: [String], environment: [String: String]) {
            let all = self.settings + [("log.format", format)]
            switch source {
            case .file:
                try Self.yaml(all).write(toFile: self.directory + "/herald.yaml", atomically: true, encoding: .utf8)
                return (["--config", self.directory + "/herald.yaml"], [:])
            case .environment:
                let variables = all.map { ("HERALD_" + $0.key.uppercased().map { $0 == "." || $0 == "-" ? "_" : String($0) }.joined(), $0.value) }
                return ([], Dictionary(uniqueKeysWithValues: variables))
            case .flags:
                return (all.flatMap { ["--" + $0.key.replacingOccurrences(of: ".", with: "-"), $0.value] }, [:])
            }
        }

        /// The settings as nested YAML mappings, the form of a configuration file.
        static func yaml(_ settings: [(key: String, value: String)], depth: Int = 0) -> String {
            var groups: [(String, [(key: String, value: String)])] = []
            var text = ""
            for (key, value) in settings {
                let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
                if parts.count == 1 {
                    text += String(repeating: "  ", count: depth) + "\(key): '\(value)'\n"
                } else if let index = groups.firstIndex(where: { $0.0 == parts[0] }) {
                    groups[index].1.append((parts[1], value))
                } else {
                    groups.append((parts[0], [(parts[1], value)]))
                }
            }
            for (name, children) in groups {
                text += String(repeating: "  ", count: depth) + "\(name):\n" + Self.yaml(children, depth: depth + 1)
            }
            return text
        }

        func leaks(in text: String) -> [String] {
            self.needles.filter { text.contains($0) }
        }
    }

    static func request(_ port: Int, _ path: String, method: String = "GET", token: String? = nil, body: String? = nil) async -> String {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        // Only a hang reaches it.
        request.timeoutInterval = TestTime.bound(.seconds(30)) / .seconds(1)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        guard let (data, response) = try? await URLSession.shared.data(for: request) else { return "(no answer)" }
        return "HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0)\n" + String(decoding: data, as: UTF8.self)
    }

    @Test(arguments: [(Source.file, "text"), (.environment, "json"), (.flags, "text")])
    func noOutputShowsASecret(source: Source, format: String) async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            let secrets = try Secrets(directory: directory)
            let port = try EtcdCluster.freePort()
            let (arguments, environment) = try secrets.arguments(source, format: format)
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve", "--server-port", "\(port)"] + arguments,
                environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
            )
            defer { child.signal(SIGKILL) }
            let ready = try await child.waitFor(timeout: TestTime.bound(.seconds(60))) { $0.contains("Herald is listening") ? true : nil }
            try #require(ready == true, "no 'listening' line; output:\n\(child.output)")

            var answers: [String] = []
            answers.append(await Self.request(port, "/api/config", token: "API-TOKEN-1"))
            #expect(answers[0].hasPrefix("HTTP 200"), "\(answers[0])")
            answers.append(await Self.request(port, "/metrics", token: "METRICS-TOKEN-2"))
            answers.append(await Self.request(port, "/api/config", token: "API-TOKEN-"))
            answers.append(await Self.request(port, "/api/push", method: "POST", token: "API-TOKEN-1", body: "{not json"))
            answers.append(await Self.request(port, "/nowhere", token: "API-TOKEN-1"))
            // Delivery fails (nothing listens on port 9): its errors are logged at every level.
            let push = #"{"notifications":[{"platform":1,"tokens":["\#(String(repeating: "ab", count: 32))"],"topic":"im.herald.wallet","message":"m"},{"platform":2,"tokens":["fcm-token"],"message":"m"}]}"#
            answers.append(await Self.request(port, "/api/push", method: "POST", token: "API-TOKEN-1", body: push))
            // A content topic with a line break of its own, and a forged line after it.
            let forged = #"[{"payload":"AAAA","contentTopic":"/waku/1/x\nFORGED-LINE herald: fake\r\nFORGED-LINE","version":1}]"#
            answers.append(await Self.request(port, "/waku/v1/messages", method: "POST", token: "API-TOKEN-1", body: forged))
            answers.append(await Self.request(port, "/aries/v1/identity"))
            // The failed deliveries log their errors before the node stops (and while it drains).
            let logged = try await child.waitFor(timeout: TestTime.bound(.seconds(30))) { $0.contains("cannot connect to APNs") ? true : nil }
            #expect(logged == true, "the failed APNs connection was logged")
            child.signal(SIGTERM)
            // Whether it stops by itself is not the point: its output until then is searched.
            _ = try await child.waitForExit(timeout: TestTime.bound(.seconds(20)))

            let output = child.output
            #expect(output.contains("trace") || output.contains("debug"), "the node logged at its most verbose level")
            #expect(secrets.leaks(in: output).isEmpty, "process output shows \(secrets.leaks(in: output))")
            for answer in answers {
                #expect(secrets.leaks(in: answer).isEmpty, "an answer shows \(secrets.leaks(in: answer)): \(answer.prefix(300))")
            }
            #expect(output.contains("FORGED-LINE"), "the dropped message's topic was logged")
            #expect(!output.split(whereSeparator: \.isNewline).contains { $0.hasPrefix("FORGED-LINE") }, "a content topic forged a log line")

            let printed = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve", "--print-config"] + arguments,
                environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
            )
            _ = try await printed.waitForExit(timeout: TestTime.bound(.seconds(60)))
            #expect(printed.output.contains("feedback.url = https://***@127.0.0.1:9/hook?***"), "\(printed.output)")
            #expect(secrets.leaks(in: printed.output).isEmpty, "--print-config shows \(secrets.leaks(in: printed.output))")
        }
    }

    /// A refused value is named without its credentials.
    @Test func configurationErrorsShowNoCredentials() async throws {
        try #require(HeraldExecutable.exists)
        try await withTemporaryDirectory { directory in
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve", "--feedback-url", "ftp://user:FTP-PASSWORD-11@127.0.0.1/?key=FTP-QUERY-12", "--store-path", directory + "/data"],
                environment: ["PATH": "/usr/bin:/bin"]
            )
            let exit = try await child.waitForExit(timeout: TestTime.bound(.seconds(60)))
            #expect(exit.status == 78)
            // Returns at once: the process has ended and its output with it.
            let output = try await child.waitFor(timeout: TestTime.bound(.seconds(30))) { $0.contains("feedback.url") ? $0 : nil } ?? child.output
            #expect(output.contains("feedback.url"))
            #expect(!output.contains("FTP-PASSWORD-11") && !output.contains("FTP-QUERY-12"), "\(output)")
        }
    }
}

import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldBench
import HeraldCore
import HeraldCrypto
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension HeraldDev {
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Load-test a Herald node (local or remote) and report throughput and latency percentiles.",
            discussion: """
                Scenarios: gorush-push (POST /api/push with gorush's request); status-register \
                (POST /waku/v1/messages with Status registrations, each from a new client key, \
                built before the run so client crypto is not measured; the node's identity key is \
                read from GET /status/v1/identity unless --status-server-key is given); \
                status-push (POST /waku/v1/messages with Status push requests, one notification \
                each, for --devices clients registered first with APNs tokens under --topic, \
                default im.herald.bench; the node must deliver that topic); webpush-relay (POST \
                /relay-to/production/<token>, or /relay-to-fcm/<--fcm-app>/<token> with \
                --platform android, with real Web Push requests as Mastodon sends them, encrypted \
                before the run in --encoding for --payload-size bytes of plaintext; the node's \
                webpush.rate-limit must allow --devices subscriptions the rate, or be 0).
                Open loop (--rate) sends at a constant arrival rate and measures each latency from \
                the request's intended send time, so a slow server cannot hide its queueing. Closed \
                loop (no --rate) keeps --concurrency requests in flight and finds the most the node \
                completes. Latencies go through an HdrHistogram (3 significant digits); the result \
                is printed and, with --output, written as JSON.
                The node must deliver to a peer that can take the load: run `herald-dev mock-apns` and \
                point an app at it (benchmarks/scripts/gorush-push-bench.sh does; see \
                docs/benchmarks.md). Never aim it at a production APNs app.
                """
        )

        enum Scenario: String, ExpressibleByArgument, CaseIterable {
            case gorushPush = "gorush-push"
            case statusRegister = "status-register"
            case statusPush = "status-push"
            case webPushRelay = "webpush-relay"
        }

        @Argument(help: "The scenario: \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")).") var scenario: Scenario
        @Option(help: "Base URL of the Herald node.") var url: String = "http://127.0.0.1:8080"
        @Option(help: "Open loop: requests per second offered. Without it the run is closed loop.") var rate: Double?
        @Option(help: "How long to send, in seconds.") var duration: Double = 10
        @Option(help: "Closed loop: requests in flight. Open loop: the most in flight before arrivals count as client_saturated.")
        var concurrency: Int = 64
        @Option(help: "Requests in flight on each keep-alive connection (HTTP/1.1 pipelining above 1): --concurrency / --pipeline connections.")
        var pipeline: Int = 1
        @Option(help: "Distinct device tokens the requests cycle through (status-push: clients registered before the run).") var devices: Int = 10_000
        @Option(help: "Device tokens per request (gorush `tokens`).") var tokensPerRequest: Int = 1
        @Option(help: "Approximate APNs payload size in bytes.") var payloadSize: Int = 128
        @Option(help: "Target platform: ios or android.") var platform: String = "ios"
        @Option(help: "gorush `topic` (selects the app when several are configured); status-push: the `apn_topic` registered (default im.herald.bench).") var topic: String?
        @Option(help: "Bearer token for nodes with api.bearer-token set.") var bearerToken: String?
        @Option(help: "Seconds of load sent first and not measured (connections, caches).") var warmup: Double = 2
        @Option(help: "Write the result as JSON to this file.") var output: String?
        @Option(help: "status-register, status-push: the node's Status public key (0x04… or compressed hex); fetched from the node when absent.")
        var statusServerKey: String?
        @Option(help: "status-register: distinct registrations prepared; requests beyond it resend them (answered VERSION_MISMATCH).")
        var registrations: Int = 20_000
        @Option(help: "status-register: instead of new registrations, this many clients re-register their one installation in turn with a rising version (churn: the registry stays this size while its log takes every write). Built as the requests go.")
        var reRegisterSubjects: Int?
        @Option(help: "webpush-relay: aes128gcm or aesgcm.") var encoding: String = "aes128gcm"
        @Option(help: "webpush-relay with --platform android: the FCM relay app (webpush.fcm-apps).") var fcmApp: String = "bench"

        func validate() throws {
            guard self.duration > 0 else { throw ValidationError("--duration must be positive") }
            guard self.rate.map({ $0 > 0 }) ?? true else { throw ValidationError("--rate must be positive") }
            guard self.concurrency > 0, self.pipeline > 0, self.devices > 0, self.tokensPerRequest > 0 else {
                throw ValidationError("--concurrency, --pipeline, --devices and --tokens-per-request must be positive")
            }
            guard GorushPushScenario.Platform(rawValue: self.platform) != nil else {
                throw ValidationError("--platform must be ios or android")
            }
            guard WebPushRelayScenario.Encoding(rawValue: self.encoding) != nil else {
                throw ValidationError("--encoding must be aes128gcm or aesgcm")
            }
        }

        func run() async throws {
            switch self.scenario {
            case .gorushPush:
                try await self.run(
                    GorushPushScenario(
                        devices: self.devices,
                        tokensPerRequest: self.tokensPerRequest,
                        payloadSize: self.payloadSize,
                        platform: GorushPushScenario.Platform(rawValue: self.platform) ?? .ios,
                        topic: self.topic
                    )
                )
            case .statusPush:
                let key = try await self.statusKey()
                let started = ContinuousClock.now
                let count = Int((self.duration + self.warmup) * (self.rate ?? 3000) * 1.5)
                let scenario = try StatusPushScenario(server: key, devices: self.devices, count: count, topic: self.topic ?? "im.herald.bench")
                print("prepared \(self.devices) registrations and \(count) push requests in \(ContinuousClock.now - started)")
                for body in scenario.registrationBodies {
                    var request = HTTPClientRequest(url: self.url.trimmingCharacters(in: ["/"]) + "/waku/v1/messages")
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/json")
                    if let token = self.bearerToken { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
                    request.body = .bytes(ByteBuffer(bytes: body))
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                    _ = try await response.body.collect(upTo: 64 << 20)
                    guard response.status == .ok else { throw ValidationError("registering the devices failed: HTTP \(response.status.code)") }
                }
                // The warm-up uses the last third of the requests, so measured ones are new.
                try await self.run(scenario, warmup: scenario.starting(at: count * 2 / 3))
            case .webPushRelay:
                let scenario = try WebPushRelayScenario(
                    devices: self.devices,
                    encoding: WebPushRelayScenario.Encoding(rawValue: self.encoding) ?? .aes128gcm,
                    payloadSize: self.payloadSize,
                    fcmApp: self.platform == "android" ? self.fcmApp : nil
                )
                try await self.run(scenario)
            case .statusRegister where self.reRegisterSubjects != nil:
                let key = try await self.statusKey()
                let scenario = StatusReRegisterScenario(server: key, subjects: self.reRegisterSubjects ?? 1)
                // The warm-up and the run share the scenario's counter: the run goes on from
                // where the warm-up stopped, every request a new version.
                try await self.run(scenario, warmup: scenario)
            case .statusRegister:
                let key = try await self.statusKey()
                let started = ContinuousClock.now
                let scenario = try await StatusRegisterScenario(server: key, count: self.registrations)
                print("prepared \(self.registrations) registrations in \(ContinuousClock.now - started)")
                // The warm-up registers from the last quarter of the set, so the measured run's
                // registrations are new ones until it reaches that quarter.
                try await self.run(scenario, warmup: scenario.starting(at: self.registrations * 3 / 4))
            }
        }

        /// The node's Status key, from the option or from `GET /status/v1/identity`.
        func statusKey() async throws -> Secp256k1PublicKey {
            var text = self.statusServerKey
            if text == nil {
                let url = self.url.trimmingCharacters(in: ["/"]) + "/status/v1/identity"
                var request = HTTPClientRequest(url: url)
                if let token = self.bearerToken { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                let body = try await response.body.collect(upTo: 1 << 16)
                let identity = try JSONDecoder().decode([String: String].self, from: Data(buffer: body))
                text = identity["publicKey"]
            }
            guard var hex = text else { throw ValidationError("the node has no Status front door (GET /status/v1/identity failed)") }
            if hex.hasPrefix("0x") { hex.removeFirst(2) }
            guard let bytes = Hex.decode(hex) else { throw ValidationError("--status-server-key is not hex") }
            return try Secp256k1PublicKey(bytes: bytes)
        }

        func run<Scenario: LoadScenario>(_ scenario: Scenario, warmup warmupScenario: Scenario? = nil) async throws {
            let mode: LoadGenerator.Mode = self.rate.map { .open(rate: $0) } ?? .closed
            if self.warmup > 0 {
                var warm = LoadGenerator(baseURL: self.url, mode: mode, duration: .seconds(self.warmup), concurrency: self.concurrency, bearerToken: self.bearerToken)
                warm.pipelining = self.pipeline
                _ = try await warm.run(warmupScenario ?? scenario)
            }
            var generator = LoadGenerator(baseURL: self.url, mode: mode, duration: .seconds(self.duration), concurrency: self.concurrency, bearerToken: self.bearerToken)
            generator.pipelining = self.pipeline
            let result = try await generator.run(scenario)
            print(result.summary)
            if let output = self.output {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                try encoder.encode(result).write(to: URL(fileURLWithPath: output))
                print("result written to \(output)")
            }
        }
    }
}

public import HeraldCore
public import HeraldDelivery
public import Hummingbird
import NIOCore

/// gorush's HTTP API on Herald's delivery pool: `POST /api/push` answers as gorush does in sync
/// mode, with one failed-push entry for every target that was not delivered.
public struct GorushRoutes<Context: RequestContext>: Sendable {
    public struct Configuration: Sendable {
        /// gorush's `core.max_notification`.
        public var maximumNotifications = 100
        /// Largest request body read.
        public var maximumBodySize = 4 << 20
        /// gorush's `log.hide_token`.
        public var hideTokens = true

        public init() {}
    }

    let pool: DeliveryPool
    let configuration: Configuration
    let statistics: GorushStatistics

    public init(pool: DeliveryPool, statistics: GorushStatistics, configuration: Configuration = .init()) {
        self.pool = pool
        self.statistics = statistics
        self.configuration = configuration
    }

    public func register(on router: Router<Context>) {
        router.post("/api/push") { request, context in try await self.push(request, context: context) }
        router.get("/api/stat/app") { _, _ in Self.json(status: .ok, self.statistics.json) }
    }

    func push(_ request: Request, context: Context) async throws -> Response {
        let body = try await request.body.collect(upTo: self.configuration.maximumBodySize)
        let notifications: [GorushNotification]
        do {
            notifications = try GorushPushRequest.decode(Array(buffer: body), maximumNotifications: self.configuration.maximumNotifications)
        } catch {
            return Self.json(status: .init(code: error.status), .object([("code", .number(Double(error.status))), ("message", .string(error.message))]))
        }
        let enabled = notifications.filter { $0.enabledPlatform != nil }
        let counts = enabled.reduce(0) { $0 + $1.targetCount }
        self.statistics.accepted(counts: counts)
        let logs = await self.deliver(enabled)
        return Self.json(
            status: .ok,
            .object([("counts", .number(Double(counts))), ("logs", .array(logs.map(\.json))), ("success", .string("ok"))])
        )
    }

    /// Sends every target of every entry at once and returns the failures.
    private func deliver(_ notifications: [GorushNotification]) async -> [GorushLogEntry] {
        await withTaskGroup(of: GorushLogEntry?.self) { group in
            for entry in notifications {
                switch entry.enabledPlatform {
                case .ios:
                    // Several apps in one Herald: the topic names the app that owns it.
                    let app = entry.topic.flatMap { self.pool.appID(forTopic: $0) }
                    for var push in entry.apnsNotifications() {
                        push.device.app = app
                        group.addTask { [push] in
                            let outcome: DeliveryOutcome
                            do {
                                outcome = try await self.pool.send(push)
                            } catch {
                                // gorush's answer when its queue is full.
                                self.statistics.pushed(platform: "ios", succeeded: false)
                                return self.failure(entry, platform: "ios", token: push.device.token, error: "max capacity reached")
                            }
                            self.statistics.pushed(platform: "ios", succeeded: outcome == .delivered)
                            guard outcome != .delivered else { return nil }
                            return self.failure(entry, platform: "ios", token: push.device.token, error: outcome.reason)
                        }
                    }
                default:
                    // FCM delivery arrives with the FCM client; until then each token fails visibly.
                    for token in entry.tokens ?? [] {
                        group.addTask {
                            self.statistics.pushed(platform: "android", succeeded: false)
                            return self.failure(entry, platform: "android", token: token, error: "UnsupportedPlatform")
                        }
                    }
                }
            }
            var failures: [GorushLogEntry] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures
        }
    }

    private func failure(_ entry: GorushNotification, platform: String, token: String, error: String) -> GorushLogEntry {
        GorushLogEntry(
            notifID: entry.notifID,
            platform: platform,
            token: self.configuration.hideTokens ? GorushLogEntry.mask(token) : token,
            message: entry.message ?? "",
            error: error
        )
    }

    static func json(status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.bytes))
        )
    }
}

public import AsyncHTTPClient
import Foundation
public import HeraldCore
public import Logging
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Connects the Status front door to a real nwaku node through its REST relay API: subscribes
/// to the pubsub topic Status uses, polls it, hands every message on one of the server's content
/// topics (its partitioned and personal topics and every joined query topic) to the server, and
/// publishes the answers on the same pubsub topic.
///
/// It follows the pubsub topic rather than subscribing per content topic: Status shards by
/// pubsub topic (`/waku/2/rs/16/32` by default), nwaku's content-topic ("auto") API shards by a
/// hash that need not land there, and a server may have a million query topics.
public struct NwakuRelayAdapter: Sendable {
    public struct Configuration: Sendable {
        /// The nwaku REST base URL, e.g. `http://127.0.0.1:8645`.
        public var url: String
        /// The pubsub topic Status clients publish on.
        public var pubsubTopic = "/waku/2/rs/16/32"
        /// Pause between polls that found nothing.
        public var pollInterval: Duration = .milliseconds(250)
        /// Messages handled at once.
        public var concurrency = 16
        public var requestTimeout: TimeAmount = .seconds(10)

        public init(url: String) {
            self.url = url
        }
    }

    public let configuration: Configuration
    let server: StatusServer
    let client: HTTPClient
    let logger: Logger

    public init(configuration: Configuration, server: StatusServer, client: HTTPClient = .shared, logger: Logger) {
        self.configuration = configuration
        self.server = server
        self.client = client
        self.logger = logger
    }

    var base: String {
        self.configuration.url.hasSuffix("/") ? String(self.configuration.url.dropLast()) : self.configuration.url
    }

    var encodedPubsubTopic: String {
        self.configuration.pubsubTopic.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? self.configuration.pubsubTopic
    }

    /// Subscribes, then polls until `shouldStop` says so (checked between polls, so a batch taken
    /// from nwaku is always handled and answered) or the task is cancelled. Failures are logged
    /// and retried with back-off; they never end the loop.
    public func run(until shouldStop: @escaping @Sendable () -> Bool = { false }) async {
        var failures = 0
        var subscribed = false
        while !Task.isCancelled, !shouldStop() {
            do {
                if !subscribed {
                    try await self.subscribe()
                    subscribed = true
                    self.logger.notice("nwaku relay subscribed", metadata: ["url": "\(self.base)", "pubsub-topic": "\(self.configuration.pubsubTopic)"])
                }
                let handled = try await self.pollOnce()
                failures = 0
                if handled == 0 { try await Task.sleep(for: self.configuration.pollInterval) }
            } catch is CancellationError {
                return
            } catch {
                failures += 1
                // nwaku forgets subscriptions when it restarts: subscribe again after a failure.
                subscribed = false
                let delay = Duration.milliseconds(min(100 << min(failures, 6), 5_000))
                self.logger.warning("nwaku relay request failed", metadata: ["error": "\(error)", "retry-in": "\(delay)"])
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// `POST /relay/v1/subscriptions` with the pubsub topic.
    public func subscribe() async throws {
        var request = HTTPClientRequest(url: self.base + "/relay/v1/subscriptions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode([self.configuration.pubsubTopic])))
        try await self.send(request)
    }

    /// Fetches the messages received since the last poll, handles those on the server's topics
    /// and publishes the answers. Returns how many messages were fetched.
    @discardableResult
    public func pollOnce() async throws -> Int {
        var request = HTTPClientRequest(url: self.base + "/relay/v1/messages/" + self.encodedPubsubTopic)
        request.method = .GET
        let body = try await self.send(request)
        let messages = try JSONDecoder().decode([WakuMessage].self, from: Data(buffer: body))
        await self.handle(messages.filter { self.isOurs($0.contentTopic) })
        return messages.count
    }

    /// `POST /relay/v1/messages/{pubsubTopic}`.
    public func publish(_ message: WakuMessage) async throws {
        var request = HTTPClientRequest(url: self.base + "/relay/v1/messages/" + self.encodedPubsubTopic)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(message)))
        try await self.send(request)
    }

    private func isOurs(_ contentTopic: String) -> Bool {
        self.server.contentTopics.contains(contentTopic) || self.server.queryTopics.contains(contentTopic)
    }

    /// Handles up to `concurrency` messages at once, each answer published as soon as it is
    /// ready, on its own: one refused answer does not hold back or drop the others.
    private func handle(_ messages: [WakuMessage]) async {
        var next = 0
        await withTaskGroup(of: Void.self) { group in
            func start() {
                guard next < messages.count else { return }
                let message = messages[next]
                next += 1
                group.addTask {
                    for reply in await self.server.handle(message) {
                        await self.publishRetrying(reply)
                    }
                }
            }
            for _ in 0..<max(1, self.configuration.concurrency) { start() }
            while await group.next() != nil { start() }
        }
    }

    /// The message was handled (its dedup marker written, its pushes sent), so its answer is
    /// worth a few tries; nwaku refusing it (4xx: too large, invalid) is final.
    private func publishRetrying(_ reply: WakuMessage) async {
        for attempt in 1...Self.publishAttempts {
            do {
                try await self.publish(reply)
                return
            } catch let error as NwakuError where (400..<500).contains(error.status) {
                self.logger.warning("nwaku refused an answer", metadata: ["topic": "\(reply.contentTopic)", "error": "\(error)"])
                return
            } catch {
                guard attempt < Self.publishAttempts else {
                    self.logger.warning("answer not published", metadata: ["topic": "\(reply.contentTopic)", "error": "\(error)"])
                    return
                }
                try? await Task.sleep(for: .milliseconds(200 << attempt))
            }
        }
    }

    static let publishAttempts = 4

    @discardableResult
    private func send(_ request: HTTPClientRequest) async throws -> ByteBuffer {
        let response = try await self.client.execute(request, timeout: self.configuration.requestTimeout)
        let body = try await response.body.collect(upTo: 64 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw NwakuError(status: Int(response.status.code), body: String(buffer: body))
        }
        return body
    }
}

/// nwaku answered a REST request with an error status.
public struct NwakuError: CodedError {
    public enum Code: String, Sendable {
        case refused = "nwaku.refused"
    }

    public let status: Int
    public let body: String

    public var code: Code { .refused }
    public var message: String { self.description }

    public var description: String { "nwaku answered \(self.status): \(self.body.prefix(200))" }
}

public import CoreMetrics
public import Foundation
import HeraldCore
import HeraldDelivery
import HeraldCrypto
import SwiftProtobuf
public import HeraldCluster
public import HeraldStore
public import Logging

/// The server side of the Status push-notification protocol (status-go
/// `protocol/pushnotificationserver`): takes Waku messages as received, answers registrations,
/// queries and push requests with the Waku messages to publish.
public struct StatusServer: Sendable {
    public struct Configuration: Sendable {
        /// How long a handled push request is remembered, so a redelivered copy is dropped.
        /// status-go remembers forever; a limit keeps the store bounded.
        public var deduplicationWindow: Duration = .seconds(30 * 24 * 3600)
        /// In a cluster, how long a handled message is remembered so that the copies other
        /// nodes' nwaku adapters receive get no second answer.
        public var clusterDeduplicationWindow: Duration = .seconds(3600)
        /// Largest Waku payload handled: nwaku's default message limit (150 KiB). Anything larger
        /// cannot have crossed a Waku network and would only cost work.
        public var maximumPayloadSize = 150 << 10
        /// Registrations and queries a minute one sender key may send; 0 is no limit. Push
        /// requests are signed with ephemeral keys, so they are not counted per sender.
        public var senderRateLimit = 60

        public init() {}
    }

    public let identity: StatusIdentity
    public let queryTopics: QueryTopics
    let configuration: Configuration
    let registry: Registry
    let markers: MessageMarkers
    let delivery: any StatusPushDelivery
    let metrics: StatusMetrics
    let logger: Logger
    let now: @Sendable () -> Date
    /// In a cluster, registrations are written by their partition's owner.
    let routing: PartitionRouting
    let senderLimiter: SenderRateLimiter
    /// Where messages are handled: off the event loops.
    let executor: any TaskExecutor = ThreadPoolExecutor()

    public init(
        identity: StatusIdentity,
        registry: Registry,
        markers: MessageMarkers,
        delivery: any StatusPushDelivery,
        configuration: Configuration = .init(),
        queryTopics: QueryTopics = QueryTopics(),
        metrics: any MetricsFactory = MetricsSystem.factory,
        logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init,
        clock: any Clock<Duration> = ContinuousClock(),
        routing: PartitionRouting = .alone
    ) {
        self.routing = routing
        self.senderLimiter = SenderRateLimiter(perMinute: configuration.senderRateLimit, clock: clock)
        self.identity = identity
        self.registry = registry
        self.markers = markers
        self.delivery = delivery
        self.configuration = configuration
        self.queryTopics = queryTopics
        self.metrics = StatusMetrics(factory: metrics)
        self.logger = logger
        self.now = now
    }

    /// Joins the query topic of every key with a live registration, as status-go does at start.
    public func joinStoredQueryTopics() throws {
        try self.registry.view.forEachSubject(scope: .status) { self.queryTopics.join(hashedKey: $0) }
    }

    /// From now on, joins the query topic of every Status registration the view applies, whoever
    /// appended it: in a cluster most arrive from other nodes through the log.
    public func joinQueryTopicsAsRegistrationsApply() {
        let topics = self.queryTopics
        self.registry.view.onApplied { entries in
            for entry in entries {
                if case .register(let registration) = entry.command, registration.key.scope == .status {
                    topics.join(hashedKey: registration.key.subject)
                }
            }
        }
    }

    /// The server's own content topics: push requests arrive on the partitioned one,
    /// registrations on the personal one. Query topics are in `queryTopics`.
    public var contentTopics: [String] {
        [self.identity.partitionedTopic.description, self.identity.personalTopic.description]
    }

    /// Handles one message as received from the network and returns the messages to publish in
    /// reply. A message the protocol drops gets no reply; why is logged and counted.
    /// `forwardedFrom` is the node that forwarded the message here (the internal API); such a
    /// message is handled here or not at all.
    public func handle(_ message: WakuMessage, forwardedFrom: String? = nil) async -> [WakuMessage] {
        await withTaskExecutorPreference(self.executor) {
            do throws(StatusError) {
                let replies = try await self.process(message, forwardedFrom: forwardedFrom)
                return replies
            } catch {
                self.metrics.dropped(error.code)
                self.logger.debug("status message dropped", metadata: ["topic": "\(message.contentTopic)", "reason": "\(error)"])
                return []
            }
        }
    }

    /// `handle`, with the reason a message was dropped thrown.
    public func process(_ message: WakuMessage, forwardedFrom: String? = nil) async throws(StatusError) -> [WakuMessage] {
        guard message.version == 1 else {
            throw StatusError(.invalidMessage, "Status uses Waku payload version 1, not \(message.version)")
        }
        guard message.payload.count <= self.configuration.maximumPayloadSize else {
            throw StatusError(.invalidMessage, "the payload is \(message.payload.count) bytes, over the \(self.configuration.maximumPayloadSize)-byte Waku limit")
        }
        let payload = try WakuPayload(decoding: self.open(message))
        guard let transportSigner = payload.signer else {
            throw StatusError(.unsigned, "the Waku payload is not signed")
        }
        let application = try ApplicationMessage(decoding: payload.data, transportSigner: transportSigner)
        // status-go dispatches only a non-empty payload (proto3 decodes an empty one as absent).
        guard !application.payload.isEmpty else {
            throw StatusError(.ignored, "the ApplicationMetadataMessage has no payload")
        }
        let type = Protobuf_ApplicationMetadataMessage.TypeEnum(rawValue: application.type)
        guard type == .pushNotificationRegistration || type == .pushNotificationQuery || type == .pushNotificationRequest else {
            throw StatusError(.ignored, "message type \(application.type) is not for a push server")
        }
        // Silence, as the protocol answers abuse: the client sends again later.
        if forwardedFrom == nil, type != .pushNotificationRequest, let seconds = self.senderLimiter.take("\(transportSigner)") {
            throw StatusError(.rateLimited, "the sender sent more than \(self.configuration.senderRateLimit) registrations and queries a minute; free again in \(seconds) s")
        }
        return try await self.atOwner(message, sender: application.signer ?? transportSigner, forwardedFrom: forwardedFrom) { () async throws(StatusError) in
            // Push requests are claimed by their own marker, with the protocol's window.
            guard self.routing.isClustered, type != .pushNotificationRequest else {
                return try await self.dispatch(application, type: type)
            }
            try await self.claimInCluster(application)
            do throws(StatusError) {
                return try await self.dispatch(application, type: type)
            } catch where error.code == .internalFailure {
                // Left unanswered so the client sends it again: a copy must then be handled.
                await self.releaseClaim(application)
                throw error
            }
        }
    }

    private func dispatch(_ application: ApplicationMessage, type: Protobuf_ApplicationMetadataMessage.TypeEnum?) async throws(StatusError) -> [WakuMessage] {
        switch type {
        case .pushNotificationRegistration:
            return [try await self.handleRegistration(application)]
        case .pushNotificationQuery:
            return [try self.handleQuery(application)]
        default:
            return try await self.handlePushRequest(application).map { [$0] } ?? []
        }
    }

    /// Decrypts with the identity key on the server's topics, with the topic key on a joined
    /// query topic.
    private func open(_ message: WakuMessage) throws(StatusError) -> [UInt8] {
        let topic = message.contentTopic
        if topic == self.identity.partitionedTopic.description || topic == self.identity.personalTopic.description {
            do {
                return try WakuEnvelope.openAsymmetric(message.payload, using: self.identity.privateKey)
            } catch {
                // Partitioned topics are shared by many keys: most traffic there is not for us.
                throw StatusError(.undecryptable, "the envelope is not encrypted to the server key: \(error)")
            }
        }
        let keys: [[UInt8]]
        do {
            keys = try self.queryTopics.symmetricKeys(for: topic)
        } catch {
            throw StatusError(.internalFailure, "deriving the query topic key failed: \(error)")
        }
        guard !keys.isEmpty else {
            throw StatusError(.unknownTopic, "\(topic) is not a topic this server listens on")
        }
        for key in keys {
            if let plaintext = try? WakuEnvelope.openSymmetric(message.payload, key: key) { return plaintext }
        }
        throw StatusError(.undecryptable, "the envelope does not open with the key of query topic \(topic)")
    }

    /// Waku timestamps are nanoseconds; the clock is clamped so a strange one cannot trap.
    var nanosecondsSinceEpoch: Int64 {
        let nanoseconds = self.now().timeIntervalSince1970 * 1_000_000_000
        return nanoseconds.isFinite && nanoseconds > 0 ? Int64(min(nanoseconds, 9e18)) : 0
    }

    /// Encodes, signs, encrypts and addresses an answer (status.md §4.6).
    func reply(
        _ type: Protobuf_ApplicationMetadataMessage.TypeEnum,
        _ response: some SwiftProtobuf.Message,
        to recipient: Secp256k1PublicKey
    ) throws(StatusError) -> WakuMessage {
        do {
            return try StatusReply.message(
                type: type,
                payload: try response.serializedBytes(),
                from: self.identity.privateKey,
                to: recipient,
                timestamp: self.nanosecondsSinceEpoch
            )
        } catch {
            throw StatusError(.internalFailure, "building the answer failed: \(error)")
        }
    }
}

public import HeraldConfig

/// The Status front door's section, `status.*`. It runs only when an identity key is set.
public struct StatusConfiguration: ConfigurationSectionValue {
    /// The server's secp256k1 identity key (hex, as `herald keygen` writes it).
    public var identityKeyFile: String?
    /// How long handled push requests are remembered against redelivery.
    public var deduplicationWindow: Duration = .seconds(30 * 24 * 3600)
    /// An external gorush `/api/push` that receives status-go's JSON instead of Herald's own
    /// delivery.
    public var gorushURL: String?
    /// A nwaku node's REST API to receive and publish Status messages through.
    public var nwakuURL: String?
    public var pubsubTopic = "/waku/2/rs/16/32"
    /// Pushes handed over and not yet delivered.
    public var queueLimit = 8192
    /// Registrations and queries a minute per sender key; 0 is no limit.
    public var rateLimit = 60

    public init() {}

    public static let section = "status"

    public static let keys: [ConfigurationKey] = [
        ConfigurationKey(
            "status.identity-key-file",
            .string,
            default: nil,
            help: "File holding the Status server's secp256k1 private key in hex (`herald keygen` writes one). Setting it enables the Status front door (`POST /waku/v1/messages`); the public key is logged at start."
        ),
        ConfigurationKey(
            "status.dedup-window",
            .duration,
            default: "30d",
            help: "How long a handled Status push request is remembered, so a redelivered copy is not pushed twice."
        ),
        ConfigurationKey(
            "status.gorush-url",
            .string,
            default: nil,
            help: "When set, Status pushes are POSTed to this gorush `/api/push` URL exactly as status-go sends them, instead of through Herald's own APNs/FCM connections."
        ),
        ConfigurationKey(
            "status.queue-limit",
            .integer(1...10_000_000),
            default: "8192",
            help: "Status pushes waiting or running at once (they are delivered after the answer); beyond it a push request gets no answer, as status-go gives none when gorush fails."
        ),
        ConfigurationKey(
            "status.nwaku-url",
            .string,
            default: nil,
            help: "REST URL of a nwaku node (e.g. `http://127.0.0.1:8645`). When set, Herald subscribes to `status.pubsub-topic` there, answers the Status messages on its topics and publishes the answers."
        ),
        ConfigurationKey(
            "status.rate-limit",
            .integer(0...1_000_000),
            default: "60",
            help: "Registrations and queries a minute one sender key may send, in bursts of as many; beyond it they are dropped in silence (the protocol's answer to abuse) and counted as `status.rate_limited`. Push requests are signed with ephemeral keys, so they are not counted per sender. 0 is no limit. Counted per node."
        ),
        ConfigurationKey(
            "status.pubsub-topic",
            .string,
            default: "/waku/2/rs/16/32",
            help: "The Waku pubsub topic Status clients publish on (status-go's default shard)."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        self.identityKeyFile = try section.nonEmptyString("identity-key-file", expecting: "a file path")
        self.deduplicationWindow = try section.duration("dedup-window", atLeast: .seconds(1))
        self.gorushURL = try section.httpURL("gorush-url")
        self.queueLimit = try section.integer("queue-limit")
        self.rateLimit = try section.integer("rate-limit")
        self.nwakuURL = try section.httpURL("nwaku-url")
        let topic = try section.string("pubsub-topic") ?? ""
        guard topic.hasPrefix("/waku/2/") else {
            throw section.error("pubsub-topic", "'\(topic)' is not a Waku pubsub topic such as /waku/2/rs/16/32")
        }
        self.pubsubTopic = topic
    }
}

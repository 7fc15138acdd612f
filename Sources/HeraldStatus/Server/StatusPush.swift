public import HeraldCore

/// One push the Status front door decided to send: a registered device and the texts status-go
/// would have handed to gorush (status.md §9).
public struct StatusPush: Sendable, Hashable {
    public var registration: RegistrationKey
    public var device: Device
    /// gorush's platform number: 1 for APN tokens, 2 for Firebase tokens, 0 for anything else.
    public var gorushPlatform: Int
    /// The alert text chosen by notification type.
    public var message: String
    /// `0x`-hex of the notification's `message` (status-go clients leave it empty: `"0x"`).
    public var encryptedMessage: String
    /// `0x`-hex of the hashed chat id.
    public var chatID: String
    /// `0x`-hex of the hashed public key of the recipient.
    public var publicKey: String
    /// The registration's `apn_topic`, sent for every platform; empty when unset.
    public var topic: String

    public init(
        registration: RegistrationKey,
        device: Device,
        gorushPlatform: Int,
        message: String,
        encryptedMessage: String,
        chatID: String,
        publicKey: String,
        topic: String
    ) {
        self.registration = registration
        self.device = device
        self.gorushPlatform = gorushPlatform
        self.message = message
        self.encryptedMessage = encryptedMessage
        self.chatID = chatID
        self.publicKey = publicKey
        self.topic = topic
    }
}

/// Where the Status front door sends its pushes.
public protocol StatusPushDelivery: Sendable {
    /// Hands over the pushes of one request. Returns `false` when they could not be handed over
    /// at all; the request then gets no response, as status-go sends none when its gorush POST
    /// fails. Provider answers do not change the reports, as in status-go.
    func deliver(_ pushes: [StatusPush]) async -> Bool
}

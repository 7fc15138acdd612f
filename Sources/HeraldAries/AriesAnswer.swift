/// An answer for the mediator: a DIDComm message to pack and return (200), none (204, an ack),
/// JSON of Herald's API, or the owner's answer relayed as it gave it.
public struct AriesAnswer: Sendable {
    public var status: Int
    public var body: [UInt8]
}

public import HeraldCluster

/// A request the mediator API refuses before any DIDComm answer: not a DIDComm message, or one
/// Herald does not take.
public struct AriesError: Error, Equatable, CustomStringConvertible {
    public var status: Int
    public var description: String

    init(_ status: Int, _ description: String) {
        self.status = status
        self.description = description
    }
}

extension AriesError: OwnerUnavailableError {
    /// 503: the mediator or wallet sends again.
    public static func ownerUnavailable(_ reason: String) -> AriesError {
        AriesError(503, "the connection's owner cannot take it now: \(reason)")
    }
}

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

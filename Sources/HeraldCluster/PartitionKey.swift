public import HeraldCore

/// What a request is routed by: the bytes whose hash picks its partition. A registration routes
/// by its scope and subject, so every installation of a subject has one owner; anything else a
/// front door keeps at one owner (an idempotency key, a message id) routes by its own bytes.
public struct PartitionKey: Sendable, Hashable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(scope: RegistrationScope, subject: [UInt8]) {
        self.bytes = [scope.rawValue] + subject
    }

    public init(_ registration: RegistrationKey) {
        self.init(scope: registration.scope, subject: registration.subject)
    }

    public func partition(of count: Int) -> Int {
        RegistrationKey.partition(ofBytes: self.bytes, of: count)
    }
}

/// What the registry holds for a key: the last version seen and, unless unregistered, the
/// registration. The version outlives an unregister so that an older registration replayed later
/// is still refused.
public struct RegistryRecord: Hashable, Sendable {
    public var version: UInt64
    public var registration: Registration?

    public init(version: UInt64, registration: Registration?) {
        self.version = version
        self.registration = registration
    }
}

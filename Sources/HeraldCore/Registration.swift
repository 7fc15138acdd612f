/// A device registered to receive pushes.
public struct Registration: Hashable, Sendable {
    public var key: RegistrationKey
    /// Strictly increasing per key; a command carrying a version not above the stored one is refused.
    public var version: UInt64
    public var device: Device
    /// `false` once the provider reported the token dead, or when the client asked not to be pushed.
    public var enabled: Bool
    /// Protocol-specific data the front door keeps with the registration (the whole registration
    /// message, say). The registry stores it opaquely.
    public var attributes: [UInt8]

    public init(key: RegistrationKey, version: UInt64, device: Device, enabled: Bool = true, attributes: [UInt8] = []) {
        self.key = key
        self.version = version
        self.device = device
        self.enabled = enabled
        self.attributes = attributes
    }
}

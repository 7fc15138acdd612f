/// Which front door owns a registration. Each door has its own key space in the registry, so a
/// Status installation id can never collide with a silent-sync app-instance token.
public struct RegistrationScope: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let status = RegistrationScope(rawValue: 1)
    public static let silentSync = RegistrationScope(rawValue: 2)
    public static let aries = RegistrationScope(rawValue: 3)

    public var description: String {
        switch self {
        case .status: "status"
        case .silentSync: "silent-sync"
        case .aries: "aries"
        default: "scope(\(self.rawValue))"
        }
    }
}

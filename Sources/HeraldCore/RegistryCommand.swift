/// A change to the registry. Every change of state is one of these, appended to the command log
/// and applied in log order to every node's view.
public enum RegistryCommand: Hashable, Sendable {
    /// Register a device or replace the registration stored under the same key.
    case register(Registration)
    /// Remove the registration but keep its version, so replays of older versions stay refused.
    case unregister(RegistrationKey, version: UInt64)
    /// Stop pushing to a token the provider reported dead. Applies only while the stored
    /// registration still holds that token: a re-registration with a new token is not disabled.
    case disableToken(RegistrationKey, token: String, reason: String)

    public var key: RegistrationKey {
        switch self {
        case .register(let registration): registration.key
        case .unregister(let key, _): key
        case .disableToken(let key, _, _): key
        }
    }
}

extension RegistryCommand {
    /// What applying this command does to the record stored under its key.
    public enum Effect: Hashable, Sendable {
        case store(RegistryRecord)
        case unchanged(Skip)
    }

    /// Why a command left the registry as it was. The log keeps such commands; every node skips
    /// them the same way, so views stay identical.
    public enum Skip: String, Hashable, Sendable {
        case staleVersion = "stale_version"
        case notRegistered = "not_registered"
        case tokenReplaced = "token_replaced"
        case alreadyDisabled = "already_disabled"
    }

    /// The pure rule every view applies. Deterministic in the stored record and the command alone,
    /// so replaying the same log on any node gives the same registry.
    public func effect(on stored: RegistryRecord?) -> Effect {
        switch self {
        case .register(let registration):
            if let stored, registration.version <= stored.version {
                return .unchanged(.staleVersion)
            }
            return .store(RegistryRecord(version: registration.version, registration: registration))

        case .unregister(_, let version):
            // An unregister of a key never registered stores nothing.
            guard let stored else { return .unchanged(.notRegistered) }
            guard version > stored.version else { return .unchanged(.staleVersion) }
            return .store(RegistryRecord(version: version, registration: nil))

        case .disableToken(_, let token, _):
            guard let stored, var registration = stored.registration else { return .unchanged(.notRegistered) }
            guard registration.device.token == token else { return .unchanged(.tokenReplaced) }
            guard registration.enabled else { return .unchanged(.alreadyDisabled) }
            registration.enabled = false
            return .store(RegistryRecord(version: stored.version, registration: registration))
        }
    }
}

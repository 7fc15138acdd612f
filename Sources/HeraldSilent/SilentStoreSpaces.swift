public import HeraldCore
public import HeraldStore

extension RegistrationScope {
    /// Silent-sync registrations, by service and the hash of the app-instance token.
    public static let silentSync = RegistrationScope(2, name: "silent-sync")
}

extension MessageMarkers.Namespace {
    /// Silent-sync broadcasts: each one's progress and cursor, so a restart resumes it. Each is
    /// written with its own expiry (`silent.broadcast-retention`); the TTL here is not used.
    static let silentBroadcast = MessageMarkers.Namespace(5, name: "silent-broadcast", ttl: .seconds(7 * 86_400))
}

extension SilentFrontDoor {
    public static func storeSpaces(configuration: SilentConfiguration) -> StoreSpaces {
        StoreSpaces(registrationScopes: [.silentSync], markerNamespaces: [.silentBroadcast])
    }
}

public import HeraldCore
public import HeraldStore

extension RegistrationScope {
    /// Aries device info, by the hash of the mediator's connection id.
    public static let aries = RegistrationScope(3, name: "aries")
}

extension AriesConfiguration {
    /// `message_id`s a push was sent for, so a mediator's repeated notify pushes once.
    var messageMarkers: MessageMarkers.Namespace {
        MessageMarkers.Namespace(6, name: "aries-message", ttl: self.deduplicationWindow)
    }
}

extension AriesFrontDoor {
    public static func storeSpaces(configuration: AriesConfiguration) -> StoreSpaces {
        StoreSpaces(registrationScopes: [.aries], markerNamespaces: [configuration.messageMarkers])
    }
}

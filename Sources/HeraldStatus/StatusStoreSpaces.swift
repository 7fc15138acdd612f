public import HeraldCore
public import HeraldStore

extension RegistrationScope {
    /// Status registrations, by the hash of the client's public key.
    public static let status = RegistrationScope(1, name: "status")
}

extension StatusServer.Configuration {
    /// Push requests by message id, so a redelivered copy is dropped (status-go's dedup).
    var pushRequestMarkers: MessageMarkers.Namespace {
        MessageMarkers.Namespace(1, name: "status-push-request", ttl: self.deduplicationWindow)
    }

    /// Registrations and queries an owner handled in a cluster, against copies other nodes'
    /// adapters bring.
    var clusterMessageMarkers: MessageMarkers.Namespace {
        MessageMarkers.Namespace(2, name: "status-cluster-message", ttl: self.clusterDeduplicationWindow)
    }
}

extension StatusFrontDoor {
    public static func storeSpaces(configuration: StatusConfiguration) -> StoreSpaces {
        let server = Self.serverConfiguration(configuration)
        return StoreSpaces(registrationScopes: [.status], markerNamespaces: [server.pushRequestMarkers, server.clusterMessageMarkers])
    }
}

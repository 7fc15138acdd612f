import HeraldCore
import HeraldStore

extension RegistrationScope {
    /// Pager devices, by name. 200 and up are free for doors outside Herald's tree.
    static let pager = RegistrationScope(200, name: "example-pager")
}

extension PagerConfiguration {
    /// Page ids already accepted.
    var pageMarkers: MessageMarkers.Namespace {
        MessageMarkers.Namespace(200, name: "example-pager-page", ttl: self.dedupWindow)
    }
}

extension PagerFrontDoor {
    static func storeSpaces(configuration: PagerConfiguration) -> StoreSpaces {
        StoreSpaces(registrationScopes: [.pager], markerNamespaces: [configuration.pageMarkers])
    }
}

public import HeraldStore

extension WebPushConfiguration {
    /// Device tokens a provider declared dead, by relay app, so the relay answers 410 without
    /// asking the provider again.
    var deadTokenMarkers: MessageMarkers.Namespace {
        MessageMarkers.Namespace(4, name: "webpush-dead-token", ttl: self.deadTokenWindow)
    }
}

extension WebPushFrontDoor {
    public static func storeSpaces(configuration: WebPushConfiguration) -> StoreSpaces {
        StoreSpaces(markerNamespaces: [configuration.deadTokenMarkers])
    }
}

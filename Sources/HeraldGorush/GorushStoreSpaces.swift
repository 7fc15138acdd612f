public import HeraldStore

extension GorushFrontDoor {
    /// gorush keeps no registrations; with an idempotency window it keeps the keys it answered.
    public static func storeSpaces(configuration: GorushConfiguration) -> StoreSpaces {
        StoreSpaces(markerNamespaces: [GorushIdempotency.namespace(window: configuration.idempotencyWindow)])
    }
}

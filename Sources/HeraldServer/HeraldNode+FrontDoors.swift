import HeraldCluster
import HeraldConfig
public import HeraldFrontDoor
public import HeraldStore

extension HeraldNode {
    /// The front doors among `types` that the configuration enables, in that order, each built
    /// from its own section. Throws `ConfigurationError` naming the key when one cannot be built.
    static func makeFrontDoors(
        _ types: [any FrontDoor.Type],
        _ basis: Basis,
        registry: Registry,
        delivery: Delivery,
        cluster: Cluster?,
        configurationText: String?
    ) throws -> [any FrontDoor] {
        _ = try Self.storeSpaces(of: types, configuration: basis.configuration)
        let context = FrontDoorContext(
            registry: registry,
            markers: basis.store.markers,
            delivery: delivery.providers,
            metrics: basis.metrics,
            logger: basis.logger,
            configurationText: configurationText,
            routing: PartitionRouting(forwarder: cluster?.forwarder),
            clock: basis.clock,
            deadTokens: delivery.deadTokens,
            acceptedPushes: delivery.acceptedPushes
        )
        return try types.compactMap { try Self.make($0, configuration: basis.configuration, context: context) }
    }

    /// Every door's registration scopes and marker namespaces, each door's configured as it
    /// would run; throws `StoreError.clash` naming both doors when two declare the same number or
    /// name, before any door is built or writes.
    public static func storeSpaces(of types: [any FrontDoor.Type], configuration: HeraldConfiguration) throws -> StoreSpaces {
        try StoreSpaces.combined(types.map { Self.declared($0, configuration: configuration) })
    }

    private static func declared<Door: FrontDoor>(_ type: Door.Type, configuration: HeraldConfiguration) -> (owner: String, spaces: StoreSpaces) {
        (Door.Configuration.section, Door.storeSpaces(configuration: configuration.frontDoors[Door.Configuration.self]))
    }

    private static func make<Door: FrontDoor>(_ type: Door.Type, configuration: HeraldConfiguration, context: FrontDoorContext) throws -> (any FrontDoor)? {
        try Door.make(configuration: configuration.frontDoors[Door.Configuration.self], context: context)
    }
}

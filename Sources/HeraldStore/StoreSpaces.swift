public import HeraldCore

/// The key spaces a front door keeps in the node's store: its registration scopes and its marker
/// namespaces. Declared by the door, from its configuration (a namespace's TTL is often a window
/// the operator sets); the node gathers every enabled door's and refuses to start when two share
/// a number or a name.
public struct StoreSpaces: Sendable {
    public var registrationScopes: [RegistrationScope]
    public var markerNamespaces: [MessageMarkers.Namespace]

    public init(registrationScopes: [RegistrationScope] = [], markerNamespaces: [MessageMarkers.Namespace] = []) {
        self.registrationScopes = registrationScopes
        self.markerNamespaces = markerNamespaces
    }

    /// Every door's spaces together; throws `StoreError.clash` naming both owners when two
    /// declare the same number or name, which would mix their data.
    public static func combined(_ declared: [(owner: String, spaces: StoreSpaces)]) throws(StoreError) -> StoreSpaces {
        var scopes: [(owner: String, number: UInt8, name: String)] = []
        var namespaces: [(owner: String, number: UInt8, name: String)] = []
        for (owner, spaces) in declared {
            scopes += spaces.registrationScopes.map { (owner, $0.rawValue, $0.name) }
            namespaces += spaces.markerNamespaces.map { (owner, $0.rawValue, $0.name) }
        }
        try Self.refuseClashes(scopes, kind: "registration scope")
        try Self.refuseClashes(namespaces, kind: "marker namespace")
        return StoreSpaces(
            registrationScopes: declared.flatMap(\.spaces.registrationScopes),
            markerNamespaces: declared.flatMap(\.spaces.markerNamespaces)
        )
    }

    private static func refuseClashes(_ spaces: [(owner: String, number: UInt8, name: String)], kind: String) throws(StoreError) {
        for (index, space) in spaces.enumerated() {
            for earlier in spaces[..<index] where earlier.number == space.number || earlier.name == space.name {
                let same = earlier.number == space.number ? "number \(space.number)" : "name '\(space.name)'"
                throw StoreError(
                    .clash,
                    "\(earlier.owner) and \(space.owner) both declare the \(kind) \(same) ('\(earlier.name)' \(earlier.number), '\(space.name)' \(space.number)): each front door needs numbers and names of its own, or their data would mix"
                )
            }
        }
    }
}

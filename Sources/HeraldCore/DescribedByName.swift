/// A value printed by its type's name alone. ServiceLifecycle logs every service by its
/// description, and Herald's services hold configurations, clients and keys.
public protocol DescribedByName: CustomStringConvertible {}

extension DescribedByName {
    public var description: String { "\(Self.self)" }
}

/// Failed connection attempts of an endpoint since start: out of file descriptors apart, since
/// that is the node's own limit, not the provider's trouble.
public struct ConnectFailures: Sendable, Hashable {
    public var outOfFiles = 0
    public var other = 0

    public init() {}
}

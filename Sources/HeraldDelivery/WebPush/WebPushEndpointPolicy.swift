public import HeraldCore

/// Which push resources a provider may send to. An endpoint is a URL a client gave, so it is
/// checked twice: its `host[:port]` against the operator's allow-list, then every address the
/// host resolves to, after resolution, against the networks no public push service is in (a
/// client must not make the gateway POST into the operator's own network: SSRF).
public struct WebPushEndpointPolicy: Sendable {
    /// `host[:port]` globs, case-insensitive (Sygnal's `allowed_endpoints`); the port is part of
    /// the name only when not 443.
    public var allowedEndpoints: [Glob]
    /// Networks allowed even though they are not public: a push service on the operator's own
    /// network, or a test peer on loopback.
    public var allowedAddresses: [AddressRange]
    public var resolver: any HostResolver

    public init(allowedEndpoints: [Glob], allowedAddresses: [AddressRange] = [], resolver: any HostResolver = SystemHostResolver()) {
        self.allowedEndpoints = allowedEndpoints
        self.allowedAddresses = allowedAddresses
        self.resolver = resolver
    }

    /// Whether the endpoint's host is on the allow-list; checked before anything is resolved.
    public func allows(_ endpoint: WebPushSubscription.Endpoint) -> Bool {
        self.allowedEndpoints.contains { $0.matches(endpoint.authority) }
    }

    /// The addresses `endpoint`'s host may be connected at, IPv4 first (one address is pinned at
    /// a time, and a node without an IPv6 route is the commoner failure), else in the resolver's
    /// order. Throws `refused` when the host is not allowed or none of its addresses is,
    /// `unavailable` when its name does not resolve.
    public func allowedAddresses(for endpoint: WebPushSubscription.Endpoint) async throws(WebPushEndpointError) -> [String] {
        guard self.allows(endpoint) else {
            throw .refused("the endpoint's host \(endpoint.authority) is not on the allowed-endpoints list")
        }
        let addresses: [String]
        if AddressRange.bytes(endpoint.host) != nil {
            addresses = [endpoint.host]
        } else {
            do {
                addresses = try await self.resolver.addresses(of: endpoint.host, port: endpoint.port)
            } catch {
                throw .unavailable("\(error)")
            }
        }
        let allowed = addresses.filter(self.isAllowed)
        guard !allowed.isEmpty else {
            throw .refused(
                "the endpoint's host \(endpoint.host) resolves only to addresses that are not public (\(addresses.prefix(4).joined(separator: ", "))); allow them with allowed-addresses"
            )
        }
        return allowed.filter { !$0.contains(":") } + allowed.filter { $0.contains(":") }
    }

    /// Whether an address literal may be connected to.
    public func isAllowed(_ address: String) -> Bool {
        guard var bytes = AddressRange.bytes(address) else { return false }
        if self.allowedAddresses.contains(where: { $0.contains(bytes) }) { return true }
        // Through NAT64 the IPv4 address it carries is the one reached.
        if AddressRange.nat64.contains(bytes) { bytes = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + bytes.suffix(4) }
        guard AddressRange.isIPv4(bytes) || AddressRange.globalUnicast.contains(bytes) else { return false }
        return !AddressRange.nonPublic.contains { $0.contains(bytes) }
    }
}

/// Why an endpoint was not sent to.
public enum WebPushEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operator's rules refuse it: no retry helps.
    case refused(String)
    /// It cannot be reached now (its name did not resolve, the provider is shutting down).
    case unavailable(String)

    public var description: String {
        switch self {
        case .refused(let message), .unavailable(let message): message
        }
    }
}

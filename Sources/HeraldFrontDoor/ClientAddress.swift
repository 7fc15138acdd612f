public import Hummingbird

/// Who sent a request, as per-client limits count senders.
public enum ClientAddress {
    /// The client's IP address, without its port: one client opens many connections. Behind a
    /// reverse proxy every client has the proxy's address.
    public static func of(_ context: some RequestContext) -> String? {
        guard let address = (context as? any RemoteAddressRequestContext)?.remoteAddress else { return nil }
        return address.ipAddress ?? "\(address)"
    }
}

import Foundation

/// The base URL of a load run, split for a raw connection: `http` or `https`, host, port, and a
/// path prefix for every request.
struct LoadTarget: Sendable {
    var host: String
    var port: Int
    var tls: Bool
    var basePath: String
    /// The `Host` header: the host, and the port unless it is the scheme's.
    var hostHeader: String
    /// The TLS server name: the host unless it is an address.
    var serverName: String?

    init(url: String) throws(LoadTargetError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { throw LoadTargetError(url: url) }
        self.tls = scheme == "https"
        self.host = host
        let defaultPort = self.tls ? 443 : 80
        self.port = components.port ?? defaultPort
        let path = components.percentEncodedPath
        self.basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
        let bracketed = host.contains(":") ? "[\(host)]" : host
        self.hostHeader = self.port == defaultPort ? bracketed : "\(bracketed):\(self.port)"
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        self.serverName = isAddress ? nil : host
    }
}

struct LoadTargetError: Error, CustomStringConvertible {
    var url: String
    var description: String { "\(self.url) is not an http:// or https:// URL with a host" }
}

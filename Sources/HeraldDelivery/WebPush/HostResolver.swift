import Foundation
import NIOPosix

/// Turns a host name into the addresses it has now. The Web Push provider resolves an endpoint's
/// host itself so that it checks the very addresses it then connects to (a name that resolves
/// to a public address when checked and to a private one when connecting must not slip
/// through).
public protocol HostResolver: Sendable {
    /// The host's addresses as literals (`192.0.2.1`, `2001:db8::1`), in the resolver's order.
    func addresses(of host: String, port: Int) async throws -> [String]
}

/// The system's resolver (`getaddrinfo`, so `/etc/hosts` and the configured DNS), on NIO's
/// thread pool since it blocks.
public struct SystemHostResolver: HostResolver {
    public init() {}

    public func addresses(of host: String, port: Int) async throws -> [String] {
        try await NIOThreadPool.singleton.runIfActive {
            try Self.getaddrinfo(host, port: port)
        }
    }

    static func getaddrinfo(_ host: String, port: Int) throws -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = Foundation.getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw HostResolutionError(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let address = entry.ai_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var raw = v4.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var raw = v6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                }
            default: continue
            }
            let literal = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !literal.isEmpty, !addresses.contains(literal) { addresses.append(literal) }
        }
        guard !addresses.isEmpty else { throw HostResolutionError(host: host, reason: "no IPv4 or IPv6 address") }
        return addresses
    }
}

public struct HostResolutionError: Error, Sendable, CustomStringConvertible {
    public var host: String
    public var reason: String

    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    public var description: String { "cannot resolve \(self.host): \(self.reason)" }
}

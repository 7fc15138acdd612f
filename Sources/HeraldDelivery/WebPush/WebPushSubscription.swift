import Crypto
import Foundation
import HeraldCore

/// A browser's or a UnifiedPush distributor's push subscription: where to send (the push
/// resource) and the keys to encrypt for. As a device token it is the JSON a browser's
/// `PushSubscription.toJSON()` writes, `{"endpoint":…,"keys":{"p256dh":…,"auth":…}}`; other
/// members (`expirationTime`) are ignored.
public struct WebPushSubscription: Sendable, Hashable {
    public var endpoint: Endpoint
    /// The user agent's P-256 public key (`p256dh`), uncompressed.
    public var receiverKey: [UInt8]
    /// The 16-byte authentication secret (`auth`).
    public var authSecret: [UInt8]

    /// The push resource's URL in parts, as the request and the VAPID audience need them.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// Lower-cased; an IPv6 literal without brackets.
        public var host: String
        public var port: Int
        /// Path and query, as given.
        public var target: String
        public var url: String

        /// `https://host[:port]`, the port only when not 443: the VAPID `aud` (RFC 8292 §2).
        public var origin: String {
            let host = self.host.contains(":") ? "[\(self.host)]" : self.host
            return self.port == 443 ? "https://\(host)" : "https://\(host):\(self.port)"
        }

        /// `host[:port]` as `allowed-endpoints` globs match it (Sygnal's `allowed_endpoints`).
        public var authority: String {
            let host = self.host.contains(":") ? "[\(self.host)]" : self.host
            return self.port == 443 ? host : "\(host):\(self.port)"
        }

        public var description: String { self.url }

        /// Only `https`, with a host and no user information; a fragment is dropped, as a user
        /// agent never sends one.
        public init(_ text: String) throws(WebPushSubscriptionError) {
            guard text.utf8.count <= 2048 else { throw WebPushSubscriptionError("the endpoint is longer than 2048 bytes") }
            guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
                throw WebPushSubscriptionError("the endpoint is not a URL")
            }
            guard scheme == "https" else { throw WebPushSubscriptionError("the endpoint's scheme is \(scheme); Web Push is https only") }
            guard components.user == nil, components.password == nil else {
                throw WebPushSubscriptionError("the endpoint carries user information")
            }
            guard var host = components.percentEncodedHost?.lowercased(), !host.isEmpty else {
                throw WebPushSubscriptionError("the endpoint has no host")
            }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: "/") }) else {
                throw WebPushSubscriptionError("the endpoint's host is not a DNS name or an address")
            }
            let port = components.port ?? 443
            guard (1...65535).contains(port) else { throw WebPushSubscriptionError("the endpoint's port \(port) is not a port") }
            var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
            self.host = host
            self.port = port
            self.target = target
            self.url = "https://\(host.contains(":") ? "[\(host)]" : host)\(port == 443 ? "" : ":\(port)")\(target)"
            // The HTTP client parses this URL again and connects to the address pinned for the host
            // it reads: a host two parsers read differently would not be the host that was checked.
            guard host.contains(":") || URL(string: self.url)?.host?.lowercased() == host else {
                throw WebPushSubscriptionError("the endpoint's host is not one every URL parser reads alike")
            }
        }
    }

    public init(endpoint: Endpoint, receiverKey: [UInt8], authSecret: [UInt8]) {
        self.endpoint = endpoint
        self.receiverKey = receiverKey
        self.authSecret = authSecret
    }

    /// The subscription from its parts, as the Matrix door's pushers give them (`pushkey` is
    /// `p256dh`, `data.endpoint`, `data.auth`). Keys are base64url, padded or not; the standard
    /// alphabet is read too, since some clients write it.
    public init(endpoint: String, p256dh: String, auth: String) throws(WebPushSubscriptionError) {
        try self.init(endpoint: try Endpoint(endpoint), p256dh: p256dh, auth: auth)
    }

    /// The subscription of an endpoint already read, and its keys as text.
    public init(endpoint: Endpoint, p256dh: String, auth: String) throws(WebPushSubscriptionError) {
        guard let key = Base64URL.decode(p256dh, acceptingStandardAlphabet: true) else {
            throw WebPushSubscriptionError("keys.p256dh is not base64url")
        }
        guard key.count == 65, key.first == 4, (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil else {
            throw WebPushSubscriptionError("keys.p256dh is not an uncompressed P-256 public key (65 bytes, 0x04 first, on the curve)")
        }
        guard let secret = Base64URL.decode(auth, acceptingStandardAlphabet: true) else {
            throw WebPushSubscriptionError("keys.auth is not base64url")
        }
        guard secret.count == 16 else { throw WebPushSubscriptionError("keys.auth is \(secret.count) bytes; RFC 8291 says 16") }
        self.init(endpoint: endpoint, receiverKey: key, authSecret: secret)
    }

    /// Reads a device token: the subscription's JSON.
    public init(token: String) throws(WebPushSubscriptionError) {
        var endpoint: String?
        var p256dh: String?
        var auth: String?
        do {
            try JSONReader.read(Array(token.utf8)) { (reader: inout JSONReader) throws(JSONReadError) in
                try reader.readObject { (reader: inout JSONReader, key: String) throws(JSONReadError) in
                    switch key {
                    case "endpoint": endpoint = try reader.readString()
                    case "keys":
                        try reader.readObject { (reader: inout JSONReader, key: String) throws(JSONReadError) in
                            switch key {
                            case "p256dh": p256dh = try reader.readString()
                            case "auth": auth = try reader.readString()
                            default: try reader.skipValue()
                            }
                        }
                    default: try reader.skipValue()
                    }
                }
            }
        } catch {
            throw WebPushSubscriptionError("the token is not a Web Push subscription's JSON: \(error)")
        }
        guard let endpoint else { throw WebPushSubscriptionError("the subscription has no endpoint") }
        guard let p256dh else { throw WebPushSubscriptionError("the subscription has no keys.p256dh") }
        guard let auth else { throw WebPushSubscriptionError("the subscription has no keys.auth") }
        try self.init(endpoint: endpoint, p256dh: p256dh, auth: auth)
    }

    /// The token form: the JSON a browser writes, keys unpadded base64url.
    public var token: String {
        var object: [(String, JSONValue)] = [("endpoint", .string(self.endpoint.url))]
        object.append(("keys", .object([("p256dh", .string(Base64URL.encode(self.receiverKey))), ("auth", .string(Base64URL.encode(self.authSecret)))])))
        return String(decoding: JSONValue.object(object).bytes, as: UTF8.self)
    }
}

/// Why a token is no Web Push subscription; the push is rejected with it.
public struct WebPushSubscriptionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

public import AsyncHTTPClient
import Foundation
import HeraldCore
public import Logging
public import NIOCore
import NIOHTTP1

/// Posts Status pushes to an external gorush exactly as status-go does (status.md §9), for
/// operators who keep their gorush while moving the Status server to Herald.
public struct StatusGorushForwarder: StatusPushDelivery {
    /// gorush's push endpoint, e.g. `https://gorush.example/api/push`.
    public let url: String
    public var timeout: TimeAmount = .seconds(30)
    let client: HTTPClient
    let logger: Logger

    /// `baseURL` is gorush's address as statusd's `GorushURL` takes it (status-go appends
    /// `/api/push`); a URL that already names a path is used as it is.
    public init(baseURL: String, client: HTTPClient = .shared, logger: Logger) {
        let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let path = URLComponents(string: trimmed)?.path ?? ""
        self.url = path.isEmpty ? trimmed + "/api/push" : trimmed
        self.client = client
        self.logger = logger
    }

    /// The URL without credentials, for logs.
    var redactedURL: String {
        guard var components = URLComponents(string: self.url), components.user != nil || components.password != nil else { return self.url }
        components.user = nil
        components.password = nil
        return components.string ?? "[redacted]"
    }

    /// Like status-go, only a transport failure counts: gorush's status and body are not read.
    public func deliver(_ pushes: [StatusPush]) async -> Bool {
        var request = HTTPClientRequest(url: self.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: StatusGorushBody.encode(pushes)))
        do {
            let response = try await self.client.execute(request, timeout: self.timeout)
            _ = try? await response.body.collect(upTo: 1 << 20)
            return true
        } catch {
            self.logger.warning("status gorush POST failed", metadata: ["url": "\(self.redactedURL)", "error": "\(error)"])
            return false
        }
    }
}

import Foundation
import HTTPTypes
import HeraldFrontDoor
public import Hummingbird

/// The relay's HTTP surface: `POST <relay prefix>/<environment>/<token>[/<extra>]` for every
/// configured relay, `POST /relay-to-fcm/<app>/<token>[/<extra>]`, and toot-relay's
/// `GET /relay-to/_health`. Senders authenticate with VAPID, if at all, never with Herald's API
/// token, so these routes sit outside it.
public struct WebPushRoutes<Context: RequestContext>: Sendable {
    let relay: WebPushRelay

    public init(relay: WebPushRelay) {
        self.relay = relay
    }

    public func register(on router: some RouterMethods<Context>) {
        router.get("/relay-to/_health") { _, _ in Response(status: .ok) }
        router.head("/relay-to/_health") { _, _ in Response(status: .ok) }
        router.allowOnly([.get], at: "/relay-to/_health")
        for (name, definition) in self.relay.relays.sorted(by: { $0.key < $1.key }) {
            let pattern = RouterPath(stringLiteral: definition.pathPrefix + "/**")
            router.post(pattern) { request, _ in
                await self.handle(request, route: name) { path throws(RelayError) in try self.relay.destination(relay: name, path: path) }
            }
            self.refuseOtherMethods(pattern, route: name, on: router)
        }
        if !self.relay.fcmApps.isEmpty {
            let pattern = RouterPath(stringLiteral: "/relay-to-fcm/**")
            router.post(pattern) { request, _ in
                await self.handle(request, route: "fcm") { path throws(RelayError) in try self.relay.fcmDestination(path: path) }
            }
            self.refuseOtherMethods(pattern, route: "fcm", on: router)
        }
    }

    /// Every other method on a push resource is refused (`RelayAnswer.methodNotAllowed`).
    private func refuseOtherMethods(_ pattern: RouterPath, route: String, on router: some RouterMethods<Context>) {
        for method in [HTTPRequest.Method.get, .put, .patch, .delete, .head, .options, .trace, HTTPRequest.Method("QUERY")!] {
            router.on(pattern, method: method) { _, _ in
                self.relay.metrics.record(route: route, encoding: "none", outcome: .methodNotAllowed)
                return RelayAnswer.methodNotAllowed
            }
        }
    }

    private func handle(
        _ request: Request,
        route: String,
        destination: (String) throws(RelayError) -> RelayDestination
    ) async -> RelayAnswer {
        let rawPath = request.uri.path
        let target: RelayDestination
        do {
            target = try destination(rawPath.removingPercentEncoding ?? rawPath)
        } catch {
            return self.relay.refused(route: route, error)
        }
        var headers: [String: [String]] = [:]
        for field in request.headers {
            headers[field.name.canonicalName, default: []].append(field.value)
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: RelayMessage.maximumBodySize)
        } catch {
            let sent = request.headers[.contentLength].flatMap { Int($0) } ?? RelayMessage.maximumBodySize + 1
            return self.relay.refused(route: target.route, .bodyTooLarge(sent, limit: RelayMessage.maximumBodySize))
        }
        return await self.relay.push(
            to: target,
            headers: headers,
            body: Array(body.readableBytesView)
        )
    }
}

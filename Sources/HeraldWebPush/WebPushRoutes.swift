import Foundation
import HTTPTypes
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

    /// RFC 8030 pushes are POSTs; anything else on a push resource is 405, which a sender sees
    /// as a broken subscription, as it is.
    private func refuseOtherMethods(_ pattern: RouterPath, route: String, on router: some RouterMethods<Context>) {
        for method in [HTTPRequest.Method.get, .put, .patch, .delete, .head, .options] {
            router.on(pattern, method: method) { _, _ in
                self.relay.metrics.record(route: route, encoding: "none", outcome: .methodNotAllowed)
                return Self.response(RelayAnswer(status: 405, headers: ["Allow": "POST"], text: "push with POST (RFC 8030 §5)", outcome: .methodNotAllowed))
            }
        }
    }

    private func handle(
        _ request: Request,
        route: String,
        destination: (String) throws(RelayError) -> RelayDestination
    ) async -> Response {
        let rawPath = request.uri.path
        let target: RelayDestination
        do {
            target = try destination(rawPath.removingPercentEncoding ?? rawPath)
        } catch {
            return Self.response(self.relay.refused(route: route, error))
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
            return Self.response(self.relay.refused(route: target.route, .bodyTooLarge(sent, limit: RelayMessage.maximumBodySize)))
        }
        let answer = await self.relay.push(
            to: target,
            headers: headers,
            body: Array(body.readableBytesView)
        )
        return Self.response(answer)
    }

    static func response(_ answer: RelayAnswer) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        guard !answer.text.isEmpty else { return Response(status: .init(code: answer.status), headers: fields) }
        fields[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: .init(code: answer.status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer.text + "\n"))
        )
    }
}

import Foundation
public import HeraldFrontDoor
import HTTPTypes
public import Hummingbird

/// The mediator-facing API, behind the node's API token: a wallet's plaintext DIDComm message on
/// a connection in, Herald's plaintext answer out (the mediator packs and returns it), and the
/// mediator's "messages wait" notify. Answers render themselves (`AriesAnswer`), and so do
/// refusals (`AriesError`).
public struct AriesRoutes<Context: RequestContext>: Sendable {
    let service: AriesService

    public init(service: AriesService) {
        self.service = service
    }

    public func register(on router: some RouterMethods<Context>) {
        router.post("/aries/v1/connections/:connection/messages") { request, context in
            let body = try await request.body.collect(upTo: 64 << 10)
            let connection = context.parameters.get("connection") ?? ""
            return try await self.service.handle(Array(buffer: body), connection: connection.removingPercentEncoding ?? connection)
        }
        router.allowOnly([.post], at: "/aries/v1/connections/:connection/messages")
        router.post("/aries/v1/notify") { request, _ in
            let body = try await request.body.collect(upTo: 64 << 10)
            return try await self.service.notify(Array(buffer: body))
        }
        router.allowOnly([.post], at: "/aries/v1/notify")
    }

    public func registerInternal(on router: some RouterMethods<Context>) where Context: ForwardingRequestContext {
        router.allowOnly([.post], at: RouterPath(stringLiteral: AriesService.internalMessagesPath + ":connection"))
        router.allowOnly([.post], at: RouterPath(stringLiteral: AriesService.internalNotifyPath))
        router.post(RouterPath(stringLiteral: AriesService.internalMessagesPath + ":connection")) { request, context in
            let body = try await request.body.collect(upTo: 64 << 10)
            let connection = context.parameters.get("connection") ?? ""
            return try await self.service.handle(Array(buffer: body), connection: connection.removingPercentEncoding ?? connection, forwardedFrom: context.forwardedFrom ?? "another node")
        }
        router.post(RouterPath(stringLiteral: AriesService.internalNotifyPath)) { request, context in
            let body = try await request.body.collect(upTo: 64 << 10)
            return try await self.service.notify(Array(buffer: body), forwardedFrom: context.forwardedFrom ?? "another node")
        }
    }
}

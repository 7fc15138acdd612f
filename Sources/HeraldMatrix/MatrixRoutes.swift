import HeraldCore
import HeraldFrontDoor
import Hummingbird
import NIOCore

/// `POST /_matrix/push/v1/notify` for homeservers (no API token: a homeserver posts to the URL
/// its users' pushers name, as to Sygnal), UnifiedPush's gateway discovery on `GET`, and Matrix's
/// `M_UNRECOGNIZED` for other methods and paths under `/_matrix/push`.
struct MatrixRoutes<Context: RequestContext>: Sendable {
    let gateway: MatrixGateway

    static var notifyPath: RouterPath { "/_matrix/push/v1/notify" }

    func register(on router: some RouterMethods<Context>) {
        router.post(Self.notifyPath) { request, _ -> Response in
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: MatrixNotification.maximumBody)
            } catch {
                self.gateway.metrics.request(MatrixError.Code.tooLarge.rawValue)
                return Self.error(.contentTooLarge, MatrixError(.tooLarge, "the request body is over \(MatrixNotification.maximumBody) bytes"))
            }
            do throws(MatrixError) {
                let answer = try await self.gateway.notify(Array(buffer: body))
                self.gateway.metrics.request(answer.status == 200 ? "ok" : "retry")
                return Response(
                    status: HTTPResponse.Status(code: answer.status),
                    headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
                )
            } catch {
                self.gateway.metrics.request(error.code.rawValue)
                return Self.error(.badRequest, error)
            }
        }
        // UnifiedPush distributors ask the pusher URL whether it is a Matrix gateway.
        router.get(Self.notifyPath) { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"unifiedpush":{"gateway":"matrix"}}"#))
            )
        }
        for method in [HTTPRequest.Method.put, .delete, .patch, .options, .trace, HTTPRequest.Method("QUERY")!] {
            router.on(Self.notifyPath, method: method) { request, _ in
                var response = Self.error(.methodNotAllowed, MatrixError(.unrecognized, "\(request.method.rawValue) is not allowed here; use POST (or GET for UnifiedPush discovery)"))
                response.headers[.allow] = "GET, HEAD, POST"
                return response
            }
        }
        for method in [HTTPRequest.Method.get, .head, .post, .put, .delete, .patch] {
            router.on("/_matrix/push/**", method: method) { request, _ in
                Self.error(.notFound, MatrixError(.unrecognized, "unrecognised request: \(request.uri.path.prefix(100)) is not a push gateway endpoint"))
            }
        }
    }

    /// What other nodes forward: one device of a notification, at its pushkey's owner.
    func registerInternal(on router: some RouterMethods<Context>) where Context: ForwardingRequestContext {
        router.allowOnly([.post], at: RouterPath(stringLiteral: MatrixGateway.internalPath))
        router.post(RouterPath(stringLiteral: MatrixGateway.internalPath)) { request, context -> Response in
            let body = try await request.body.collect(upTo: MatrixNotification.maximumBody)
            let result = await self.gateway.device(Array(buffer: body), forwardedFrom: context.forwardedFrom ?? "another node")
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: result.bytes)))
        }
    }

    static func error(_ status: HTTPResponse.Status, _ error: MatrixError) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: error.body)))
    }
}

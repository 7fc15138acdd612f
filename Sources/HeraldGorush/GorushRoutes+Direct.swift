public import HTTPTypes
public import HeraldFrontDoor
import HeraldDelivery
public import NIOCore

/// `POST /api/push` answered from the connection's pipeline: the same answers as the router's
/// route, which keeps the requests carrying an `Idempotency-Key` (they may go to another node).
extension GorushRoutes: DirectRoute {
    public var method: HTTPRequest.Method { .post }
    public var path: String { "/api/push" }
    public var maximumBodySize: Int { self.configuration.maximumBodySize }

    public func takes(_ request: HTTPRequest) -> Bool {
        self.configuration.idempotency == nil || request.headerFields[GorushIdempotency.header] == nil
    }

    public func respond(to request: HTTPRequest, body: ByteBuffer, client: String?, on eventLoop: any EventLoop) -> EventLoopFuture<DirectResponse> {
        let bytes = Array(buffer: body)
        let client = self.configuration.clientLimiter == nil ? nil : client
        let promise = eventLoop.makePromise(of: DirectResponse.self)
        Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            do {
                let answer = try await self.answer(bytes, client: client)
                promise.succeed(Self.directJSON(status: HTTPResponse.Status(code: answer.status), answer.body))
            } catch let error as GorushError {
                promise.succeed(error.directResponse)
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }

    static func directJSON(status: HTTPResponse.Status, _ body: [UInt8]) -> DirectResponse {
        DirectResponse(status: status, headers: [.contentType: Self.jsonContentType], body: ByteBuffer(bytes: body))
    }
}

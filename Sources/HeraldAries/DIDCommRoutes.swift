import Foundation
import HeraldCore
public import Hummingbird

/// The DIDComm endpoint: a wallet posts an envelope packed for Herald's verkey (RFC 0019) and
/// gets the answer packed for its own, in the HTTP response (DIDComm's return route), as a
/// mediator would relay it. Authcrypt only for device info: the sender's verkey is the
/// connection. An anoncrypt envelope has no sender to key device info by or to answer to.
public struct DIDCommRoutes<Context: RequestContext>: Sendable {
    /// The connection id of a wallet talking to Herald directly.
    public static func connection(verkey: String) -> String { "didcomm:" + verkey }

    static var envelopeType: String { "application/didcomm-envelope-enc" }

    let service: AriesService
    let identity: DIDCommKey

    public init(service: AriesService, identity: DIDCommKey) {
        self.service = service
        self.identity = identity
    }

    public func register(on router: some RouterMethods<Context>) {
        router.get("/aries/v1/identity") { _, _ in
            let body = JSONValue.object([("verkey", .string(self.identity.verkeyBase58)), ("endpoint", .string("/aries/v1/didcomm"))]).bytes
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.post("/aries/v1/didcomm") { request, _ in
            let body = try await request.body.collect(upTo: 64 << 10)
            return await self.handle(Array(buffer: body))
        }
    }

    private func handle(_ body: [UInt8]) async -> Response {
        let opened: DIDCommEnvelope.Opened
        do {
            opened = try DIDCommEnvelope.open(body, with: self.identity)
        } catch {
            return Self.error(400, error.description)
        }
        guard let sender = opened.sender else {
            return Self.error(400, "anoncrypt envelopes carry no sender: device info is kept per connection, which is the sender's verkey; pack with authcrypt")
        }
        let answer = await self.service.handle(opened.message, connection: Self.connection(verkey: sender))
        switch answer.status {
        case 200:
            do {
                let packed = try DIDCommEnvelope.pack(answer.body, for: [sender], from: self.identity)
                return Response(status: .ok, headers: [.contentType: Self.envelopeType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: packed)))
            } catch {
                return Self.error(500, error.description)
            }
        case 204:
            return Response(status: .accepted)
        default:
            return Response(status: .init(code: answer.status), headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
    }

    static func error(_ status: Int, _ message: String) -> Response {
        Response(
            status: .init(code: status),
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object([("error", .string(message))]).bytes))
        )
    }
}

import Foundation
import HeraldCore
public import Hummingbird
import HeraldFrontDoor
public import HeraldDelivery

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
    /// Envelopes a minute per client address, charged before an envelope is opened (opening
    /// costs a key exchange).
    let clientLimiter: SenderRateLimiter?

    public init(service: AriesService, identity: DIDCommKey, clientLimiter: SenderRateLimiter? = nil) {
        self.service = service
        self.identity = identity
        self.clientLimiter = clientLimiter
    }

    public func register(on router: some RouterMethods<Context>) {
        router.get("/aries/v1/identity") { _, _ in
            let body = JSONValue.object([("verkey", .string(self.identity.verkeyBase58)), ("endpoint", .string("/aries/v1/didcomm"))]).bytes
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.allowOnly([.get], at: "/aries/v1/identity")
        router.post("/aries/v1/didcomm") { request, context in
            if let limiter = self.clientLimiter, let client = ClientAddress.of(context), let seconds = limiter.take(client) {
                self.service.metrics.rateLimited()
                throw AriesError.rateLimited(perMinute: limiter.perMinute, retryAfter: seconds)
            }
            let body = try await request.body.collect(upTo: 64 << 10)
            return try await self.handle(Array(buffer: body), request: request, context: context)
        }
        router.allowOnly([.post], at: "/aries/v1/didcomm")
    }

    /// Opens the envelope, has the service answer its message and packs the answer. Refusals
    /// are thrown (`AriesError`) and render themselves.
    private func handle(_ body: [UInt8], request: Request, context: Context) async throws -> Response {
        let opened: DIDCommEnvelope.Opened
        do {
            opened = try DIDCommEnvelope.open(body, with: self.identity)
        } catch {
            throw AriesError.invalidEnvelope(error.description)
        }
        guard let sender = opened.sender else {
            throw AriesError.invalidEnvelope(
                "anoncrypt envelopes carry no sender: device info is kept per connection, which is the sender's verkey; pack with authcrypt"
            )
        }
        let answer = try await self.service.handle(opened.message, connection: Self.connection(verkey: sender))
        switch answer.status {
        case 200:
            let packed: [UInt8]
            do {
                packed = try DIDCommEnvelope.pack(answer.body, for: [sender], from: self.identity)
            } catch {
                throw AriesError.answerNotPacked(error)
            }
            return Response(status: .ok, headers: [.contentType: Self.envelopeType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: packed)))
        case 204:
            return Response(status: .accepted)
        default:
            // The owner's refusal, relayed: as the mediator API renders it.
            return try answer.response(from: request, context: context)
        }
    }
}

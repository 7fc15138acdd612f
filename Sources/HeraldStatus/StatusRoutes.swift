public import Foundation
import HTTPTypes
public import Hummingbird
import HeraldCluster
public import HeraldFrontDoor
import HeraldCore
import HeraldCrypto
import NIOFoundationCompat
import NIOCore

/// `POST /waku/v1/messages`: Waku messages in nwaku's REST JSON form, processed as if received
/// from the network; the answer is the JSON array of messages Herald would publish in reply.
/// The direct path for tests, benchmarks and deployments without a Waku node. A body it refuses
/// is thrown as a `WakuRequestError`, which renders itself.
public struct StatusRoutes<Context: RequestContext>: Sendable {
    /// Largest request body read; a Waku message is at most 150 KiB.
    public var maximumBodySize = 4 << 20
    /// Most messages in one request.
    public var maximumMessages = 1000

    let server: StatusServer

    public init(server: StatusServer) {
        self.server = server
    }

    public func register(on router: some RouterMethods<Context>) {
        router.post("/waku/v1/messages") { request, _ in try await self.messages(request) }
        router.allowOnly([.post], at: "/waku/v1/messages")
        router.get("/status/v1/identity") { _, _ in
            Self.json(status: .ok, Array(#"{"publicKey":"0x\#(Hex.encode(self.server.identity.publicKey.uncompressedRepresentation))","partitionedTopic":"\#(self.server.identity.partitionedTopic)","personalTopic":"\#(self.server.identity.personalTopic)"}"#.utf8))
        }
        router.allowOnly([.get], at: "/status/v1/identity")
    }

    /// The internal API other nodes forward registrations to; behind the cluster secret.
    public func registerInternal(on router: some RouterMethods<Context>) where Context: ForwardingRequestContext {
        router.allowOnly([.post], at: RouterPath(stringLiteral: StatusServer.forwardingPath))
        router.post(RouterPath(stringLiteral: StatusServer.forwardingPath)) { request, context in
            try await self.forwarded(request, from: context.forwardedFrom ?? "another node")
        }
    }

    /// A message another node forwarded: handled here, never forwarded again.
    func forwarded(_ request: Request, from: String) async throws -> Response {
        let body = try await request.body.collect(upTo: self.maximumBodySize)
        let message: WakuMessage
        do {
            message = try JSONDecoder().decode(WakuMessage.self, from: Data(buffer: body))
        } catch {
            throw WakuRequestError.notOneMessage(error)
        }
        let replies = await self.server.handle(message, forwardedFrom: from)
        return Self.json(status: .ok, Array(try JSONEncoder().encode(replies)))
    }

    func messages(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: self.maximumBodySize)
        let messages: [WakuMessage]
        do {
            messages = try Self.decode(Data(buffer: body))
        } catch {
            throw WakuRequestError.notMessages(error)
        }
        guard messages.count <= self.maximumMessages else {
            throw WakuRequestError.tooManyMessages(messages.count, limit: self.maximumMessages)
        }
        var replies: [WakuMessage] = []
        for message in messages {
            replies += await self.server.handle(message)
        }
        return Self.json(status: .ok, Array(try JSONEncoder().encode(replies)))
    }

    /// The messages of a `/waku/v1/messages` body: one message, or an array of them.
    public static func decode(_ data: Data) throws -> [WakuMessage] {
        let decoder = JSONDecoder()
        if let first = data.first(where: { !" \t\r\n".utf8.contains($0) }), first == UInt8(ascii: "[") {
            return try decoder.decode([WakuMessage].self, from: data)
        }
        return [try decoder.decode(WakuMessage.self, from: data)]
    }

    static func json(status: HTTPResponse.Status, _ body: [UInt8]) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}


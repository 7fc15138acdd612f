import Foundation
import HeraldTesting
import HeraldStatus
import Hummingbird
import NIOCore
import NIOFoundationCompat
import Synchronization

/// A test peer for nwaku's REST relay API on 127.0.0.1: `POST /relay/v1/subscriptions`,
/// `GET /relay/v1/messages/{pubsubTopic}` (messages since the last poll, for subscribed topics
/// only, as nwaku answers) and `POST /relay/v1/messages/{pubsubTopic}` (recorded as published).
/// Tests put network traffic in with `inject`. Bodies are checked as nwaku checks them: a
/// message needs a base64 `payload` and a non-empty `contentTopic`.
final class MockNwaku: Sendable {
    private struct State {
        var subscriptions: Set<String> = []
        var pending: [String: [WakuMessage]] = [:]
        var published: [(topic: String, message: WakuMessage)] = []
        var polls = 0
        var failNextRequests = 0
    }

    private let state = Mutex(State())
    private let server: LoopbackServer

    private init(server: LoopbackServer) {
        self.server = server
    }

    var port: Int { self.server.port }

    var url: String { "http://127.0.0.1:\(self.port)" }
    var subscriptions: Set<String> { self.state.withLock { $0.subscriptions } }
    var published: [(topic: String, message: WakuMessage)] { self.state.withLock { $0.published } }
    var pollCount: Int { self.state.withLock { $0.polls } }

    /// Delivers `message` to the next poll of `pubsubTopic`, if subscribed by then.
    func inject(_ message: WakuMessage, pubsubTopic: String = "/waku/2/rs/16/32") {
        self.state.withLock { $0.pending[pubsubTopic, default: []].append(message) }
    }

    /// Answers the next `count` requests with 503, as a restarting node would; it also forgets
    /// its subscriptions, as a restarted nwaku does.
    func failNext(_ count: Int) {
        self.state.withLock {
            $0.failNextRequests = count
            $0.subscriptions = []
        }
    }

    /// Waits until `count` messages were published.
    func waitForPublished(_ count: Int) async throws -> [(topic: String, message: WakuMessage)] {
        try await waitUntil("\(count) messages are published", within: .seconds(60), observing: { self.state.withLock { $0.published.count } }) { $0 >= count }
        return self.published
    }

    static func start() async throws -> MockNwaku {
        let box = Box()
        let router = Router()
        router.post("/relay/v1/subscriptions") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            guard let topics = try? JSONDecoder().decode([String].self, from: Data(buffer: body)), !topics.isEmpty,
                  topics.allSatisfy({ $0.hasPrefix("/waku/2/") })
            else { return Self.text(.badRequest, "Failed to decode request: expected a list of pubsub topics") }
            return box.peer?.answer { $0.subscriptions.formUnion(topics) } ?? Self.text(.serviceUnavailable, "")
        }
        router.get("/relay/v1/messages/:topic") { request, context -> Response in
            let topic = (context.parameters.get("topic") ?? "").removingPercentEncoding ?? ""
            guard let peer = box.peer else { return Self.text(.serviceUnavailable, "") }
            return peer.poll(topic)
        }
        router.post("/relay/v1/messages/:topic") { request, context -> Response in
            let topic = (context.parameters.get("topic") ?? "").removingPercentEncoding ?? ""
            let body = try await request.body.collect(upTo: 1 << 20)
            guard let message = try? JSONDecoder().decode(WakuMessage.self, from: Data(buffer: body)), !message.contentTopic.isEmpty else {
                return Self.text(.badRequest, "Failed to decode request: invalid message")
            }
            return box.peer?.answer { $0.published.append((topic, message)) } ?? Self.text(.serviceUnavailable, "")
        }
        let server = try await LoopbackServer.start(router)
        let peer = MockNwaku(server: server)
        box.set(peer)
        return peer
    }

    func stop() async {
        await self.server.stop()
    }

    private func answer(_ change: (inout State) -> Void) -> Response {
        let accepted = self.state.withLock { state in
            if state.failNextRequests > 0 {
                state.failNextRequests -= 1
                return false
            }
            change(&state)
            return true
        }
        return accepted ? Self.text(.ok, "OK") : Self.text(.serviceUnavailable, "node restarting")
    }

    private func poll(_ topic: String) -> Response {
        enum Outcome {
            case messages([WakuMessage])
            case refused(HTTPResponse.Status, String)
        }
        let outcome: Outcome = self.state.withLock { state in
            if state.failNextRequests > 0 {
                state.failNextRequests -= 1
                return .refused(.serviceUnavailable, "node restarting")
            }
            guard state.subscriptions.contains(topic) else {
                return .refused(.notFound, "Not subscribed to topic: \(topic)")
            }
            state.polls += 1
            return .messages(state.pending.removeValue(forKey: topic) ?? [])
        }
        switch outcome {
        case .messages(let messages):
            let body = (try? JSONEncoder().encode(messages)) ?? Data("[]".utf8)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
        case .refused(let status, let text):
            return Self.text(status, text)
        }
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    private final class Box: Sendable {
        private let stored = Mutex<MockNwaku?>(nil)
        var peer: MockNwaku? { self.stored.withLock { $0 } }
        func set(_ peer: MockNwaku) { self.stored.withLock { $0 = peer } }
    }
}

import Foundation
import HeraldTesting
import Hummingbird
import NIOCore
import Synchronization

/// A feedback webhook receiver on 127.0.0.1 that records every JSON body posted to it, and can
/// refuse the first posts to exercise the webhook's retries.
final class WebhookReceiver: Sendable {
    private let bodies = Mutex<[Data]>([])
    private let refusals = Mutex<Int>(0)
    private let attempts = Mutex<Int>(0)
    private let server: LoopbackServer

    private init(server: LoopbackServer) {
        self.server = server
    }

    var port: Int { self.server.port }

    var url: String { "http://127.0.0.1:\(self.port)/feedback" }
    var gorushURL: String { "http://127.0.0.1:\(self.port)/api/push" }
    var received: [[String: Any]] {
        self.bodies.withLock { $0 }.map { (try? JSONSerialization.jsonObject(with: $0) as? [String: Any]) ?? [:] }
    }
    var attemptCount: Int { self.attempts.withLock { $0 } }

    func refuseNext(_ count: Int) {
        self.refusals.withLock { $0 = count }
    }

    fileprivate func record(_ body: Data) -> Bool {
        self.attempts.withLock { $0 += 1 }
        let refuse = self.refusals.withLock { refusals in
            guard refusals > 0 else { return false }
            refusals -= 1
            return true
        }
        if !refuse { self.bodies.withLock { $0.append(body) } }
        return !refuse
    }

    static func start() async throws -> WebhookReceiver {
        let box = Box()
        let router = Router()
        router.post("/feedback") { request, _ -> HTTPResponse.Status in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let body = Data(buffer.readableBytesView)
            guard let receiver = box.receiver.withLock({ $0 }) else { return .serviceUnavailable }
            return receiver.record(body) ? .ok : .serviceUnavailable
        }
        // Also a stand-in for gorush's /api/push, where the Status front door posts pushes.
        router.post("/api/push") { request, _ -> HTTPResponse.Status in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            guard let receiver = box.receiver.withLock({ $0 }) else { return .serviceUnavailable }
            return receiver.record(Data(buffer.readableBytesView)) ? .ok : .serviceUnavailable
        }
        let server = try await LoopbackServer.start(router)
        let receiver = WebhookReceiver(server: server)
        box.receiver.withLock { $0 = receiver }
        return receiver
    }

    func stop() async {
        await self.server.stop()
    }

    private final class Box: Sendable {
        let receiver = Mutex<WebhookReceiver?>(nil)
    }
}

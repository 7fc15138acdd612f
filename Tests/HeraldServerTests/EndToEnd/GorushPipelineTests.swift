import Foundation
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// `POST /api/push` answered from the connection's pipeline (`server.direct-routes`) meets the
/// connection rules of the router's answers: pipelined requests, to the pipeline's route and
/// to the router's, are answered in the order they were sent, and `Connection: close` closes
/// after its answer.
@Suite struct GorushPipelineTests {
    typealias Harness = GorushEndToEndHarness

    static func post(_ body: String, closing: Bool = false) -> String {
        "POST /api/push HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + (closing ? "Connection: close\r\n" : "") + "\r\n" + body
    }

    @Test(arguments: [true, false])
    func pipelinedRequestsAreAnsweredInOrder(direct: Bool) async throws {
        try await Harness.with(extraYAML: "server:\n  direct-routes: \(direct)\n", setup: .live) { h in
            let port = try #require(h.client.port)
            let peer = try ConnectionRulesTests.Peer.open(port: port)
            let one = Harness.request(Harness.ios([Harness.apnsToken(0)]))
            let two = Harness.request(Harness.ios([Harness.apnsToken(1), Harness.apnsToken(2)]))
            try await peer.send(Self.post(one) + "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n" + Self.post("{}") + Self.post(two, closing: true))
            try await peer.readToEnd("four answers, then the close the last asked for")
            let answers = peer.text.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(answers.map { $0.prefix(3) } == ["200", "200", "400", "200"], "\(peer.text)")
            let bodies = answers.map { $0.components(separatedBy: "\r\n\r\n").last ?? "" }
            #expect(bodies.first == #"{"counts":1,"logs":[],"success":"ok"}"#)
            #expect(bodies.dropFirst(2).first == #"{"code":400,"message":"Missing notifications field."}"#)
            #expect(bodies.last == #"{"counts":2,"logs":[],"success":"ok"}"#)
            #expect(answers.last?.lowercased().contains("connection: close") == true)
            #expect(Set(h.wallet.accepted.map(\.token)) == Set((0..<3).map(Harness.apnsToken)))
            // Counted once each, whichever way they were answered.
            let metrics = try await h.client.execute(uri: "/metrics", method: .get)
            let text = String(buffer: metrics.body)
            #expect(text.contains(#"herald_http_requests_total{route="/api/push",method="POST",status="200"} 2"#), "\(text)")
            #expect(text.contains(#"herald_http_requests_total{route="/api/push",method="POST",status="400"} 1"#))
        }
    }
}

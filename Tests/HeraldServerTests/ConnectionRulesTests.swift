import Foundation
import HeraldTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The connection rules a real client meets over a socket: HTTP/1.0 and `Connection: close` end
/// the connection after the answer, keep-alive keeps it, and a request dripped byte by byte is
/// cut off at `server.request-timeout` while an idle keep-alive connection is not.
@Suite struct ConnectionRulesTests {
    /// A client's connection to the node, read without blocking.
    final class Peer {
        let socket: Int32
        private var received: [UInt8] = []
        /// Set once the node has closed (or reset) the connection.
        private(set) var closed = false

        private init(socket: Int32) {
            self.socket = socket
        }

        deinit {
            Glibc.close(self.socket)
        }

        static func open(port: Int) throws -> Peer {
            let socket = ConnectionFloodTests.connect(port: port)
            try #require(socket >= 0, "cannot connect to 127.0.0.1:\(port)")
            return Peer(socket: socket)
        }

        /// Everything the node sent so far.
        var text: String { String(decoding: self.received, as: UTF8.self) }

        /// The answers `200` among it.
        var answers: Int { self.text.components(separatedBy: "HTTP/1.1 200").count - 1 }

        /// Sends `request`, one byte every `drip` when given, stopping once the node has closed
        /// the connection.
        func send(_ request: String, drip: Duration? = nil) async throws {
            for chunk in drip == nil ? [Array(request.utf8)] : request.utf8.map({ [$0] }) {
                self.drain()
                guard !self.closed, chunk.withUnsafeBytes({ Glibc.send(self.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == chunk.count else { return }
                // Not a wait for a condition: the drip is the slow client under test.
                if let drip { try await Task.sleep(for: drip) }
            }
        }

        /// Reads until `done` holds for what arrived or the node closes the connection; throws
        /// `WaitTimedOut` with what arrived when neither happens.
        func read(_ expectation: @autoclosure () -> String, until done: (String) -> Bool) async throws {
            try await waitUntil(expectation(), observing: { () -> String in
                self.drain()
                return self.text
            }) { self.closed || done($0) }
        }

        /// Reads until the node closes the connection.
        func readToEnd(_ expectation: @autoclosure () -> String) async throws {
            try await self.read(expectation(), until: { _ in false })
        }

        /// Takes in what has arrived, without waiting, and notes the end of the connection.
        private func drain() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !self.closed {
                let count = buffer.withUnsafeMutableBytes { recv(self.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count > 0 {
                    self.received += buffer[..<count]
                } else if count < 0, errno == EINTR {
                    continue
                } else if count < 0, errno == EAGAIN {
                    return
                } else {
                    // 0 is the node's FIN; any other error, a reset.
                    self.closed = true
                }
            }
        }
    }

    @Test func keepAliveIsHonouredAndSlowRequestsAreCutOff() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            let port = try EtcdCluster.freePort()
            // The request timeout is the rule under test. The idle timeout lies beyond every wait
            // here, so a connection that ends ends by a rule under test, never by idling.
            let idleTimeout = Int((TestTime.bound(.seconds(600)) / .seconds(1)).rounded(.up))
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: [
                    "serve", "--server-port", "\(port)", "--server-request-timeout", "1s", "--server-idle-timeout", "\(idleTimeout)s",
                    "--store-path", directory + "/data",
                ],
                environment: ["PATH": "/usr/bin:/bin"]
            )
            defer { child.signal(SIGKILL) }
            let ready = try await child.waitFor(timeout: TestTime.bound(.seconds(60))) { $0.contains("Herald is listening") ? true : nil }
            try #require(ready == true, "no 'listening' line; output:\n\(child.output)")

            let http10 = try Peer.open(port: port)
            try await http10.send("GET /healthz HTTP/1.0\r\n\r\n")
            try await http10.readToEnd("the node closes an HTTP/1.0 connection without keep-alive after its answer")
            #expect(http10.text.hasPrefix("HTTP/1.1 200"))
            #expect(http10.text.lowercased().contains("connection: close"))

            let closing = try Peer.open(port: port)
            try await closing.send("GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            try await closing.readToEnd("the node closes a connection after answering `Connection: close`")
            #expect(closing.text.hasPrefix("HTTP/1.1 200"))

            // Two pipelined requests, the second asking to close: both answered, then closed.
            let pipelined = try Peer.open(port: port)
            try await pipelined.send("GET /healthz HTTP/1.1\r\nHost: h\r\n\r\nGET /readyz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            try await pipelined.readToEnd("the node closes the connection after the pipelined request asking it to")
            #expect(pipelined.answers == 2, "\(pipelined.text)")

            // Kept open: HTTP/1.0 asking for keep-alive, and a keep-alive client that then sends
            // nothing past the request timeout, which is no slow request.
            let keptAlive = try Peer.open(port: port)
            try await keptAlive.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            try await keptAlive.read("the answer to HTTP/1.0 asking for keep-alive") { $0.contains("HTTP/1.1 200") }
            let idle = try Peer.open(port: port)
            try await idle.send("GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n")
            try await idle.read("the answer to HTTP/1.1") { $0.contains("HTTP/1.1 200") }

            // A head dripped at 5 bytes a second (14 s for all of it), and a body that stops
            // arriving, both begun after the two connections above went quiet.
            let slowHead = try Peer.open(port: port)
            try await slowHead.send("GET /healthz HTTP/1.1\r\nHost: h\r\nX-Slow: \(String(repeating: "a", count: 40))\r\n\r\n", drip: .milliseconds(200))
            try await slowHead.readToEnd("the node cuts off a head dripped at 5 bytes a second")
            #expect(slowHead.text.isEmpty)
            let slowBody = try Peer.open(port: port)
            try await slowBody.send("POST /api/push HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n{\"notifications\"")
            try await slowBody.readToEnd("the node cuts off a body that stops arriving, at the request timeout")

            // Had the quiet connections been held to the request timeout, theirs would have run out
            // before those of the later slow requests: they still serve.
            for (peer, kind) in [(keptAlive, "the HTTP/1.0 keep-alive connection"), (idle, "the idle keep-alive connection")] {
                try await peer.send("GET /readyz HTTP/1.1\r\nHost: h\r\n\r\n")
                try await peer.read("a second answer on \(kind)") { $0.components(separatedBy: "HTTP/1.1 200").count - 1 >= 2 }
                #expect(peer.answers == 2 && !peer.closed, "\(kind) is kept: \(peer.text)")
            }

            let metrics = try Peer.open(port: port)
            try await metrics.send("GET /metrics HTTP/1.0\r\n\r\n")
            try await metrics.readToEnd("the node answers /metrics and closes the HTTP/1.0 connection")
            let timeouts = metrics.text.split(separator: "\n").first { $0.hasPrefix("herald_http_request_timeouts_total ") }
            #expect(timeouts.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 2 } == true, "\(timeouts ?? "no counter")")
        }
    }
}

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
    struct Exchange {
        var response: String
        /// How long after the request was sent the node closed the connection; `nil` if it was
        /// still open when the client stopped waiting.
        var closedAfter: Duration?
    }

    /// Sends `request` (one byte every `drip` when given), then reads until the node closes the
    /// connection or `wait` passes.
    static func exchange(port: Int, _ request: String, drip: Duration? = nil, wait: Duration = .seconds(3)) async throws -> Exchange {
        let socket = ConnectionFloodTests.connect(port: port)
        try #require(socket >= 0)
        defer { close(socket) }
        let start = ContinuousClock.now
        for chunk in drip == nil ? [Array(request.utf8)] : request.utf8.map({ [$0] }) {
            guard chunk.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == chunk.count else { break }
            if let drip { try await Task.sleep(for: drip) }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + wait
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return Exchange(response: String(decoding: received, as: UTF8.self), closedAfter: ContinuousClock.now - start) }
            received += buffer[..<count]
        }
        return Exchange(response: String(decoding: received, as: UTF8.self), closedAfter: nil)
    }

    @Test func keepAliveIsHonouredAndSlowRequestsAreCutOff() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            let port = try EtcdCluster.freePort()
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: [
                    "serve", "--server-port", "\(port)", "--server-request-timeout", "1s", "--server-idle-timeout", "10s",
                    "--store-path", directory + "/data",
                ],
                environment: ["PATH": "/usr/bin:/bin"]
            )
            defer { child.signal(SIGKILL) }
            let ready = try await child.waitFor(timeout: .seconds(30)) { $0.contains("Herald is listening") ? true : nil }
            try #require(ready == true, "no 'listening' line; output:\n\(child.output)")

            let http10 = try await Self.exchange(port: port, "GET /healthz HTTP/1.0\r\n\r\n")
            #expect(http10.response.hasPrefix("HTTP/1.1 200"))
            #expect(http10.response.lowercased().contains("connection: close"))
            #expect(http10.closedAfter.map { $0 < .seconds(1) } == true, "HTTP/1.0 without keep-alive is closed after its answer")

            let http10KeepAlive = try await Self.exchange(port: port, "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", wait: .seconds(2))
            #expect(http10KeepAlive.response.hasPrefix("HTTP/1.1 200"))
            #expect(http10KeepAlive.closedAfter == nil, "HTTP/1.0 asking for keep-alive keeps the connection")

            let close = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            #expect(close.response.hasPrefix("HTTP/1.1 200"))
            #expect(close.closedAfter.map { $0 < .seconds(1) } == true)

            // Two pipelined requests, the second asking to close: both answered, then closed.
            let pipelined = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\nGET /readyz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            #expect(pipelined.response.components(separatedBy: "HTTP/1.1 200").count == 3, "\(pipelined.response)")
            #expect(pipelined.closedAfter != nil)

            // Idle past the request timeout but within the idle timeout: a keep-alive client that
            // sends nothing is not a slow request.
            let idle = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n", wait: .seconds(2.5))
            #expect(idle.response.hasPrefix("HTTP/1.1 200"))
            #expect(idle.closedAfter == nil)

            // A head dripped at 5 bytes a second, and a body that never completes.
            let slowHead = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: h\r\nX-Slow: \(String(repeating: "a", count: 40))\r\n\r\n", drip: .milliseconds(200), wait: .seconds(3))
            #expect(slowHead.response.isEmpty)
            #expect(slowHead.closedAfter != nil, "a head dripped for 14 s is cut off")
            let slowBody = try await Self.exchange(port: port, "POST /api/push HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n{\"notifications\"", wait: .seconds(4))
            #expect(slowBody.closedAfter.map { $0 < .seconds(3) } == true, "a body that stops arriving is cut off at the request timeout")

            let metrics = try await Self.exchange(port: port, "GET /metrics HTTP/1.0\r\n\r\n")
            let timeouts = metrics.response.split(separator: "\n").first { $0.hasPrefix("herald_http_request_timeouts_total ") }
            #expect(timeouts.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 2 } == true, "\(timeouts ?? "no counter")")
        }
    }
}

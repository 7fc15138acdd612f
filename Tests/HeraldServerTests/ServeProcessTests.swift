import Foundation
import HeraldTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Runs the real `herald serve` binary as an operator would, answers /healthz, and stops on SIGTERM.
@Suite struct ServeProcessTests {
    @Test func serveAnswersHealthzAndStopsCleanlyOnSIGTERM() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: HeraldExecutable.path)
            process.arguments = ["serve", "--server-port", "0", "--store-path", directory + "/data"]
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.environment = ["PATH": "/usr/bin:/bin"]
            let output = Pipe()
            process.standardError = output
            process.standardOutput = output
            try process.run()

            let log = Mutex("")
            let reader = Thread {
                while true {
                    let data = output.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    log.withLock { $0 += String(decoding: data, as: UTF8.self) }
                }
            }
            reader.start()

            var port: Int?
            let deadline = ContinuousClock.now + .seconds(30)
            while port == nil, process.isRunning, ContinuousClock.now < deadline {
                port = log.withLock { Self.listeningPort(in: $0) }
                if port == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            let listening = try #require(port, "no 'listening' line; output:\n\(log.withLock { $0 })")
            #expect(log.withLock { $0 }.contains("not configured yet"))

            let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(listening)/healthz")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)

            kill(process.processIdentifier, SIGTERM)
            let stopDeadline = ContinuousClock.now + .seconds(20)
            while process.isRunning, ContinuousClock.now < stopDeadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!process.isRunning, "herald did not stop within 20 s of SIGTERM")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            try await Task.sleep(for: .milliseconds(50))
            #expect(log.withLock { $0 }.contains("Herald stopped"))
        }
    }

    static func listeningPort(in log: String) -> Int? {
        guard let range = log.range(of: "listening on http://127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }
}

import Foundation
import HeraldTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Runs the real `herald` binary as an operator would.
@Suite struct ServeProcessTests {
    static let environment = ["PATH": "/usr/bin:/bin"]

    @Test func serveWithNoConfigurationAnswersHealthzAndStopsCleanlyOnSIGTERM() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            // No flags but the port (8080 may be taken on the test machine): the data directory
            // is the default ./herald-data of the working directory.
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve", "--server-port", "0"],
                directory: directory,
                environment: Self.environment
            )
            let port = try await child.waitFor(timeout: .seconds(30), Self.listeningPort(in:))
            let listening = try #require(port, "no 'listening' line; output:\n\(child.output)")
            #expect(child.output.contains("no app configured"))
            #expect(FileManager.default.fileExists(atPath: directory + "/herald-data/data.mdb"))

            let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(listening)/healthz")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)

            child.signal(SIGTERM)
            let exit = try await child.waitForExit(timeout: .seconds(20))
            #expect(!exit.timedOut, "herald did not stop within 20 s of SIGTERM")
            #expect(exit.status == 0 && !exit.signalled)
            #expect(try await child.waitFor(timeout: .seconds(1)) { $0.contains("Herald stopped") ? true : nil } == true)
        }
    }

    @Test func printConfigShowsSourcesAndMasksSecrets() async throws {
        try #require(HeraldExecutable.exists)
        try await withTemporaryDirectory { directory in
            try "metrics:\n  bearer-token: hunter2\n".write(toFile: directory + "/herald.yaml", atomically: true, encoding: .utf8)
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve", "--print-config", "--server-port", "9000"],
                directory: directory,
                environment: Self.environment.merging(["HERALD_LOG_LEVEL": "debug"]) { $1 }
            )
            let exit = try await child.waitForExit(timeout: .seconds(20))
            #expect(exit.status == 0)
            let output = try await child.waitFor(timeout: .seconds(1)) { $0.contains("metrics.bearer-token") ? $0 : nil } ?? ""
            #expect(output.contains("server.port = 9000"))
            #expect(output.contains("# flag --server-port"))
            #expect(output.contains("# environment variable HERALD_LOG_LEVEL"))
            #expect(output.contains("metrics.bearer-token = ******"))
            #expect(!output.contains("hunter2"))
        }
    }

    @Test func badConfigurationExitsWithStatus78NamingTheKey() async throws {
        try #require(HeraldExecutable.exists)
        try await withTemporaryDirectory { directory in
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve"],
                directory: directory,
                environment: Self.environment.merging(["HERALD_SERVER_PORT": "eighty"]) { $1 }
            )
            let exit = try await child.waitForExit(timeout: .seconds(20))
            #expect(exit.status == 78)
            let output = try await child.waitFor(timeout: .seconds(1)) { $0.contains("server.port") ? $0 : nil } ?? ""
            #expect(output.contains("HERALD_SERVER_PORT"))
            #expect(!FileManager.default.fileExists(atPath: directory + "/herald-data"), "a refused configuration must not create the store")
        }
    }

    static func listeningPort(in log: String) -> Int? {
        guard let range = log.range(of: "listening on http://127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }
}

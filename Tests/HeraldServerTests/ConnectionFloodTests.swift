import Crypto
import Foundation
import HeraldServer
import HeraldTestTraits
import HeraldTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A node started with 256 open files, flooded with more connections than that and with
/// slowloris clients: it stays up, and its operations port answers `/healthz`.
@Suite(.loadHeavy) struct ConnectionFloodTests {
    /// A connected TCP socket to 127.0.0.1:`port`, or -1.
    static func connect(port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// A deadline for one request that only a hang reaches.
    static let requestTimeout = TestTime.bound(.seconds(30)) / .seconds(1)

    /// Whether `/healthz` of `port` answers 200.
    static func healthz(port: Int) async -> Bool {
        await Self.probe(port: port) == nil
    }

    /// Why `/healthz` of `port` did not answer 200, or `nil` when it did.
    static func probe(port: Int) async -> String? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        request.timeoutInterval = Self.requestTimeout
        let start = ContinuousClock.now
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode
            return status == 200 ? nil : "status \(status.map(String.init) ?? "none") after \(ContinuousClock.now - start)"
        } catch {
            return "\(error) after \(ContinuousClock.now - start)"
        }
    }

    /// `herald serve` under `openFiles` open files, with a 2 s idle timeout, once it listens.
    static func serve(openFiles: Int, port: Int, operations: Int, directory: String) async throws -> ChildProcess {
        let child = try ChildProcess(
            executable: "/usr/bin/prlimit",
            arguments: [
                "--nofile=\(openFiles):\(openFiles)", "--", HeraldExecutable.path, "serve",
                "--server-port", "\(port)", "--server-operations-port", "\(operations)",
                "--server-idle-timeout", "2s", "--store-path", directory + "/data",
            ],
            environment: ["PATH": "/usr/bin:/bin"]
        )
        let ready = try await child.waitFor(timeout: TestTime.bound(.seconds(60))) { $0.contains("Herald is listening") ? true : nil }
        guard ready == true else {
            child.signal(SIGKILL)
            throw WaitTimedOut(expectation: "herald serve says it is listening", lastObserved: child.output, waited: TestTime.bound(.seconds(60)))
        }
        // The operations listener may bind a moment after the line above: a flood sent before
        // would be refused, not held.
        try await waitUntil("the operations port answers /healthz", every: .milliseconds(50)) { await Self.healthz(port: operations) }
        return child
    }

    @Test func aFloodedNodeStaysUpAndItsOperationsPortAnswers() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        // This process opens 400 sockets on top of everything the suite holds.
        FileDescriptorLimit.raiseToHard()
        try await withTemporaryDirectory { directory in
            let (port, operations) = (try EtcdCluster.freePort(), try EtcdCluster.freePort())
            let child = try await Self.serve(openFiles: 256, port: port, operations: operations, directory: directory)
            defer { child.signal(SIGKILL) }
            #expect(child.output.contains("server.max-connections lowered to fit the open-file limit"))

            // More connections than the node has descriptors; every tenth a slowloris that sends
            // half a request head.
            var flood: [Int32] = []
            defer { for descriptor in flood { close(descriptor) } }
            for index in 0..<400 {
                let descriptor = Self.connect(port: port)
                guard descriptor >= 0 else { continue }
                flood.append(descriptor)
                if index % 10 == 0 {
                    let partial = Array("GET /healthz HTTP/1.1\r\nHost: flood\r\nX-Slow: ".utf8)
                    _ = partial.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
            }
            #expect(flood.count > 256, "the flood holds more sockets than the node has descriptors")

            for _ in 0..<5 {
                let failure = await Self.probe(port: operations)
                #expect(failure == nil, "the operations port answers /healthz under the flood; output:\n\(child.output.suffix(3000))")
                // Not a wait for a condition: the probes are spread over the flood as a prober's
                // would be; how far apart does not matter.
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(child.isRunning, "the node is still up; output:\n\(child.output.suffix(2000))")
            // What the node holds is visible where operators look: the capped API connections
            // (the rest wait in the kernel's backlog), well under the limit.
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(operations)/metrics")!)
            request.timeoutInterval = Self.requestTimeout
            let metrics = (try? await URLSession.shared.data(for: request)).map { String(decoding: $0.0, as: UTF8.self) } ?? ""
            let open = metrics.split(separator: "\n").first { $0.hasPrefix("process_open_fds ") }.flatMap { Double($0.split(separator: " ")[1]) }
            #expect(open.map { $0 >= 16 && $0 < 256 } == true, "process_open_fds: \(open.map { "\($0)" } ?? "missing")")
            #expect(metrics.contains("process_max_fds 256"))

            // Once the flood lets go, the API port serves again.
            for descriptor in flood { close(descriptor) }
            flood = []
            // A request may sit in the backlog behind the flood's last sockets until the node
            // has closed them.
            try await waitUntil("the API port answers /healthz again after the flood", within: .seconds(60), every: .milliseconds(200)) { await Self.healthz(port: port) }
            #expect(child.isRunning)
        }
    }

    /// Apps with 64 connections each (gorush's APNs and FCM, the relay's APNs, an FCM app: 256
    /// provider connections) under 256 open files killed a node under load; it now refuses to
    /// start, naming the limit and what does not fit.
    @Test func aConfigurationTheLimitCannotHoldIsRefusedNamingIt() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            try P256.Signing.PrivateKey().pemRepresentation.write(toFile: directory + "/key.p8", atomically: true, encoding: .utf8)
            try TestServiceAccount(projectID: "herald-budget").json().write(toFile: directory + "/sa.json", atomically: true, encoding: .utf8)
            let apns = "    apns:\n      key-file: \(directory)/key.p8\n      key-id: KEY0000001\n      team-id: TEAM000001\n      topic: im.herald.budget\n      connections: 64\n"
            let fcm = "    fcm:\n      service-account-file: \(directory)/sa.json\n      connections: 64\n"
            let yaml = "store:\n  path: \(directory)/data\napps:\n  gorush:\n\(apns)\(fcm)  relay:\n\(apns)  droid:\n\(fcm)"
            try yaml.write(toFile: directory + "/herald.yaml", atomically: true, encoding: .utf8)
            let child = try ChildProcess(
                executable: "/usr/bin/prlimit",
                arguments: ["--nofile=256:256", "--", HeraldExecutable.path, "serve", "--config", directory + "/herald.yaml", "--server-port", "\(try EtcdCluster.freePort())"],
                environment: ["PATH": "/usr/bin:/bin"]
            )
            let exit = try await child.waitForExit(timeout: TestTime.bound(.seconds(60)))
            #expect(!exit.timedOut && exit.status == 78, "exit \(exit.status); output:\n\(child.output)")
            #expect(child.output.contains("the open-file limit (256) cannot hold what this configuration opens"), "\(child.output)")
            #expect(child.output.contains("260 for provider connections (apps.droid.fcm 65, apps.gorush.apns 65, apps.gorush.fcm 65, apps.relay.apns 65)"), "\(child.output)")
            #expect(!child.output.contains("Herald is listening"))
        }
    }

    /// An operations port flooded with idle connections under a low limit: its 64 slots fill, the
    /// rest wait in the backlog, the node stays up and the API port answers.
    @Test func anOperationsPortFloodAtALowLimitLeavesTheNodeUp() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        FileDescriptorLimit.raiseToHard()
        try await withTemporaryDirectory { directory in
            let (port, operations) = (try EtcdCluster.freePort(), try EtcdCluster.freePort())
            // 33 API connections beside this configuration's budget (133 descriptors on 2 cores).
            var configuration = HeraldConfiguration()
            configuration.server.operationsPort = operations
            let limit = DescriptorBudget(configuration: configuration).reserved + 33
            let child = try await Self.serve(openFiles: limit, port: port, operations: operations, directory: directory)
            defer { child.signal(SIGKILL) }

            var flood: [Int32] = []
            defer { for descriptor in flood { close(descriptor) } }
            for _ in 0..<200 {
                let descriptor = Self.connect(port: operations)
                if descriptor >= 0 { flood.append(descriptor) }
            }
            for _ in 0..<100 {
                let descriptor = Self.connect(port: port)
                if descriptor >= 0 { flood.append(descriptor) }
            }
            #expect(flood.count > limit, "the flood holds more sockets than the node has descriptors")
            // The idle connections hold the API port's slots only until the idle timeout (2 s).
            try await waitUntil("the API port answers /healthz under the operations-port flood", within: .seconds(60), every: .milliseconds(200)) {
                await Self.healthz(port: port)
            }
            #expect(child.isRunning, "the node is still up; output:\n\(child.output.suffix(2000))")
            for descriptor in flood { close(descriptor) }
            flood = []
            try await waitUntil("the operations port answers /healthz again after the flood", within: .seconds(60), every: .milliseconds(200)) {
                await Self.healthz(port: operations)
            }
            #expect(child.isRunning)
            #expect(!child.output.contains("workq"), "libdispatch never found the node out of descriptors")
        }
    }
}

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Real etcd members (Debian's `etcd-server`) on 127.0.0.1, for tests: started on free ports in
/// a directory of the test's, killed and restarted one at a time, stopped at the end.
public final class EtcdCluster: Sendable {
    /// The store key ring every node of a test cluster shares (`store.encryption-key`): nodes
    /// open each other's log entries with it.
    public static let testStoreKey = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"

    public struct Member: Sendable {
        public var name: String
        public var clientPort: Int
        public var peerPort: Int
        public var dataDirectory: String
        public var clientURL: String { "http://127.0.0.1:\(self.clientPort)" }
    }

    public let members: [Member]
    private let processes: Mutex<[ChildProcess?]>

    /// `/usr/bin/etcd`, or `ETCD_BINARY`.
    public static var binary: String { ProcessInfo.processInfo.environment["ETCD_BINARY"] ?? "/usr/bin/etcd" }
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: Self.binary) }

    private init(members: [Member]) {
        self.members = members
        self.processes = Mutex(Array(repeating: nil, count: members.count))
    }

    public var endpoints: [String] { self.members.map(\.clientURL) }

    /// Starts `count` members in `directory` and waits until each serves clients.
    public static func start(members count: Int = 1, in directory: String) async throws -> EtcdCluster {
        var members: [Member] = []
        for index in 1...count {
            members.append(Member(name: "m\(index)", clientPort: try freePort(), peerPort: try freePort(), dataDirectory: "\(directory)/etcd-m\(index)"))
        }
        let cluster = EtcdCluster(members: members)
        do {
            for index in members.indices { try cluster.launch(index, state: "new") }
            for index in members.indices { try await cluster.waitUntilServing(index) }
        } catch {
            await cluster.stop()
            throw error
        }
        return cluster
    }

    /// Runs `body` with `count` members started in `directory`, and stops them however it ends.
    public static func with<T>(members count: Int = 1, in directory: String, _ body: (EtcdCluster) async throws -> T) async throws -> T {
        let cluster = try await Self.start(members: count, in: directory)
        do {
            let result = try await body(cluster)
            await cluster.stop()
            return result
        } catch {
            await cluster.stop()
            throw error
        }
    }

    /// SIGKILLs member `index`.
    public func kill(_ index: Int) async {
        let process = self.processes.withLock { processes -> ChildProcess? in
            defer { processes[index] = nil }
            return processes[index]
        }
        guard let process else { return }
        process.signal(SIGKILL)
        _ = try? await process.waitForExit(timeout: TestTime.bound(.seconds(30)))
    }

    /// Starts member `index` again on its data, as a member of the existing cluster.
    public func restart(_ index: Int) async throws {
        try self.launch(index, state: "existing")
        try await self.waitUntilServing(index)
    }

    /// Stops every member (SIGKILL: tests keep no etcd data).
    public func stop() async {
        for index in self.members.indices { await self.kill(index) }
    }

    public func output(of index: Int) -> String {
        self.processes.withLock { $0[index]?.output } ?? ""
    }

    private func launch(_ index: Int, state: String) throws {
        let member = self.members[index]
        let initialCluster = self.members.map { "\($0.name)=http://127.0.0.1:\($0.peerPort)" }.joined(separator: ",")
        let process = try ChildProcess(
            executable: Self.binary,
            arguments: [
                "--name", member.name, "--data-dir", member.dataDirectory,
                "--listen-client-urls", member.clientURL, "--advertise-client-urls", member.clientURL,
                "--listen-peer-urls", "http://127.0.0.1:\(member.peerPort)",
                "--initial-advertise-peer-urls", "http://127.0.0.1:\(member.peerPort)",
                "--initial-cluster", initialCluster, "--initial-cluster-state", state,
                "--initial-cluster-token", "herald-test", "--logger=zap",
                // A watch that hears nothing for a while is restarted; progress reports keep a
                // healthy one talking.
                "--experimental-watch-progress-notify-interval=2s",
            ]
        )
        self.processes.withLock { $0[index] = process }
    }

    private func waitUntilServing(_ index: Int) async throws {
        guard let process = self.processes.withLock({ $0[index] }) else { return }
        let ready = try await process.waitFor(timeout: TestTime.bound(.seconds(60))) { $0.contains("serving client traffic") ? true : nil }
        guard ready == true else {
            throw EtcdStartError(message: "etcd member \(self.members[index].name) did not start: \(process.output.suffix(2000))")
        }
    }

    /// A TCP port free on 127.0.0.1 right now, for a server whose port must be known before it
    /// starts. It is picked at random below the kernel's ephemeral range: a port from that range
    /// (the kernel's pick for port 0) can be taken as the local port of any client connection the
    /// suite opens before the server binds it, which then fails with "address in use".
    public static func freePort() throws -> Int {
        let ephemeralStart = Self.ephemeralPortRangeStart()
        let low = 10_000
        if ephemeralStart > low + 1_000 {
            for _ in 0..<200 {
                let port = Int.random(in: low..<ephemeralStart)
                if try Self.bindable(port) { return port }
            }
        }
        return try Self.boundPort(0)
    }

    /// The first port of `ip_local_port_range`, or Linux's default when it cannot be read.
    private static func ephemeralPortRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } ?? 32_768
    }

    private static func bindable(_ port: Int) throws -> Bool {
        do {
            _ = try Self.boundPort(port)
            return true
        } catch let error as EtcdStartError where error.code == EADDRINUSE || error.code == EACCES {
            return false
        }
    }

    /// Binds a socket to 127.0.0.1:`port` as a server would (SO_REUSEADDR), closes it and
    /// returns the port bound.
    private static func boundPort(_ port: Int) throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Self.systemError("socket") }
        defer { close(socket) }
        var reuse: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        guard bound == 0 else { throw Self.systemError("bind") }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        guard named == 0 else { throw Self.systemError("getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func systemError(_ call: String) -> EtcdStartError {
        let code = errno
        return EtcdStartError(message: "\(call): \(code)", code: code)
    }
}

public struct EtcdStartError: Error, CustomStringConvertible {
    public var message: String
    /// The errno behind it, when a system call failed.
    public var code: Int32 = 0
    public var description: String { self.message }

    public init(message: String, code: Int32 = 0) {
        self.message = message
        self.code = code
    }
}

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Hosts for tests that need a network partition, not a crash: each host is a network namespace
/// with two links. Its cluster link joins a bridge shared by every host (etcd and the nodes talk
/// over it); its client link goes straight to this process's namespace, so the test reaches every
/// host even while one is cut off from the others. Needs root and `ip` (iproute2); `remove()`
/// deletes everything it made.
public final class TestNetwork: Sendable {
    public static let ip = "/usr/sbin/ip"

    public static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: Self.ip)
    }

    /// Names start with it, so parallel runs and leftovers never collide.
    public let prefix: String
    public let hosts: Int
    /// Second octet of every address: 10.<net>.0.0/24 is the cluster bridge, 10.<net>.<h+1>.0/24
    /// the client link of host h.
    public let net: Int
    private let removed = Mutex(false)

    private init(prefix: String, hosts: Int, net: Int) {
        self.prefix = prefix
        self.hosts = hosts
        self.net = net
    }

    /// The address of host `index` on the cluster bridge.
    public func clusterAddress(_ index: Int) -> String { "10.\(self.net).0.\(10 + index)" }

    /// The address this process reaches host `index` at.
    public func clientAddress(_ index: Int) -> String { "10.\(self.net).\(index + 1).2" }

    func namespace(_ index: Int) -> String { "\(self.prefix)-h\(index)" }
    private var hub: String { "\(self.prefix)-hub" }

    public static func create(hosts: Int) throws -> TestNetwork {
        let tag = String(UInt16.random(in: 0x1000...0xffff), radix: 16)
        let network = TestNetwork(prefix: "ht\(tag)", hosts: hosts, net: Int.random(in: 200...249))
        do {
            try network.build()
        } catch {
            network.remove()
            throw error
        }
        return network
    }

    private func build() throws {
        let p = self.prefix
        try Self.run(["netns", "add", self.hub])
        try Self.run(["-n", self.hub, "link", "set", "lo", "up"])
        try Self.run(["-n", self.hub, "link", "add", "br0", "type", "bridge"])
        try Self.run(["-n", self.hub, "link", "set", "br0", "up"])
        for index in 0..<self.hosts {
            let ns = self.namespace(index)
            try Self.run(["netns", "add", ns])
            try Self.run(["-n", ns, "link", "set", "lo", "up"])
            // Cluster link: host side c<i>, bridge side b<i>.
            try Self.run(["link", "add", "\(p)c\(index)", "type", "veth", "peer", "name", "\(p)b\(index)"])
            try Self.run(["link", "set", "\(p)c\(index)", "netns", ns])
            try Self.run(["link", "set", "\(p)b\(index)", "netns", self.hub])
            try Self.run(["-n", self.hub, "link", "set", "\(p)b\(index)", "master", "br0", "up"])
            try Self.run(["-n", ns, "addr", "add", "\(self.clusterAddress(index))/24", "dev", "\(p)c\(index)"])
            try Self.run(["-n", ns, "link", "set", "\(p)c\(index)", "up"])
            // Client link: this namespace's side r<i>, host side k<i>.
            try Self.run(["link", "add", "\(p)r\(index)", "type", "veth", "peer", "name", "\(p)k\(index)"])
            try Self.run(["link", "set", "\(p)k\(index)", "netns", ns])
            try Self.run(["addr", "add", "10.\(self.net).\(index + 1).1/24", "dev", "\(p)r\(index)"])
            try Self.run(["link", "set", "\(p)r\(index)", "up"])
            try Self.run(["-n", ns, "addr", "add", "\(self.clientAddress(index))/24", "dev", "\(p)k\(index)"])
            try Self.run(["-n", ns, "link", "set", "\(p)k\(index)", "up"])
        }
    }

    /// Runs `executable` inside host `index`'s namespace.
    public func launch(
        on index: Int,
        _ executable: String,
        _ arguments: [String],
        directory: String? = nil,
        environment: [String: String]? = nil
    ) throws -> ChildProcess {
        // `ip netns exec` execs the command, so the child's pid is the command's own.
        try ChildProcess(executable: Self.ip, arguments: ["netns", "exec", self.namespace(index), executable] + arguments, directory: directory, environment: environment)
    }

    /// Cuts host `index` off the cluster bridge; its client link stays up.
    public func cut(_ index: Int) throws {
        try Self.run(["-n", self.namespace(index), "link", "set", "\(self.prefix)c\(index)", "down"])
    }

    public func heal(_ index: Int) throws {
        try Self.run(["-n", self.namespace(index), "link", "set", "\(self.prefix)c\(index)", "up"])
    }

    /// Deletes the namespaces (their links go with them). Stop the processes inside first.
    public func remove() {
        let already = self.removed.withLock { removed in
            defer { removed = true }
            return removed
        }
        guard !already else { return }
        for index in 0..<self.hosts { try? Self.run(["netns", "del", self.namespace(index)]) }
        try? Self.run(["netns", "del", self.hub])
        // A client-link end left here (its peer's namespace never made) is deleted by name.
        for index in 0..<self.hosts { try? Self.run(["link", "del", "\(self.prefix)r\(index)"]) }
    }

    private static func run(_ arguments: [String]) throws {
        let (status, output) = try ChildProcess.run(Self.ip, arguments)
        guard status == 0 else {
            throw TestNetworkError(description: "ip \(arguments.joined(separator: " ")): \(output)")
        }
    }
}

public struct TestNetworkError: Error, CustomStringConvertible {
    public var description: String
}

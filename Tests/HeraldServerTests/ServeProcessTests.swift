import Foundation
import HeraldTestTraits
import HeraldTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Runs the real `herald` binary as an operator would.
@Suite(.loadHeavy) struct ServeProcessTests {
    static let environment = ["PATH": "/usr/bin:/bin"]
    /// How long a process may take to start, stop or finish a command: only a hang takes longer.
    static let processLimit = TestTime.bound(.seconds(60))
    /// Reading a finished process's output returns at once; this only bounds a hang.
    static let outputLimit = TestTime.bound(.seconds(30))

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
            let port = try await child.waitFor(timeout: Self.processLimit, Self.listeningPort(in:))
            let listening = try #require(port, "no 'listening' line; output:\n\(child.output)")
            #expect(child.output.contains("no app configured"))
            #expect(FileManager.default.fileExists(atPath: directory + "/herald-data/data.mdb"))
            // Alone and unconfigured, the node makes its own store key, readable by it alone.
            let keyAttributes = try FileManager.default.attributesOfItem(atPath: directory + "/herald-data/store.key")
            #expect((keyAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(child.output.contains("store.key="))

            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(listening)/healthz")!)
            request.timeoutInterval = TestTime.bound(.seconds(30)) / .seconds(1)
            let (body, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)

            child.signal(SIGTERM)
            let exit = try await child.waitForExit(timeout: Self.processLimit)
            #expect(!exit.timedOut, "herald did not stop within \(Self.processLimit) of SIGTERM")
            #expect(exit.status == 0 && !exit.signalled)
            #expect(try await child.waitFor(timeout: Self.outputLimit) { $0.contains("Herald stopped") ? true : nil } == true)
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
            let exit = try await child.waitForExit(timeout: Self.processLimit)
            #expect(exit.status == 0)
            let output = try await child.waitFor(timeout: Self.outputLimit) { $0.contains("metrics.bearer-token") ? $0 : nil } ?? ""
            #expect(output.contains("server.port = 9000"))
            #expect(output.contains("# flag --server-port"))
            #expect(output.contains("# environment variable HERALD_LOG_LEVEL"))
            #expect(output.contains("metrics.bearer-token = ******"))
            #expect(!output.contains("hunter2"))
        }
    }

    /// Files and directories the configuration names are checked before anything is read or
    /// served: each failure names its key and exits with EX_CONFIG, quickly.
    @Test(arguments: [
        ("HERALD_STATUS_IDENTITY_KEY_FILE", "directory", "is a directory"),
        ("HERALD_STATUS_IDENTITY_KEY_FILE", "huge", "bytes; files named by configuration keys are at most"),
        ("HERALD_STATUS_IDENTITY_KEY_FILE", "missing", "no such file"),
        ("HERALD_STATUS_IDENTITY_KEY_FILE", "fifo", "not a regular file"),
        ("HERALD_STATUS_IDENTITY_KEY_FILE", "garbage", "64 hex digits"),
        ("HERALD_STORE_PATH", "plain-file", "cannot open the store"),
    ])
    func startUpFailuresExitWith78NamingTheKey(variable: String, target: String, reason: String) async throws {
        try #require(HeraldExecutable.exists)
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/directory", withIntermediateDirectories: false)
            // Sparse: two gigabytes that take no disk, which a whole-file read would pull into memory.
            let huge = try #require(FileHandle(forWritingAtPath: directory + "/huge") ?? {
                _ = FileManager.default.createFile(atPath: directory + "/huge", contents: nil)
                return FileHandle(forWritingAtPath: directory + "/huge")
            }())
            try huge.truncate(atOffset: 2 << 30)
            try huge.close()
            #expect(mkfifo(directory + "/fifo", 0o600) == 0)
            try "not hex\n".write(toFile: directory + "/garbage", atomically: true, encoding: .utf8)
            try "".write(toFile: directory + "/plain-file", atomically: true, encoding: .utf8)
            let child = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve", "--server-port", "0"],
                directory: directory,
                environment: Self.environment.merging([variable: directory + "/" + target]) { $1 }
            )
            let exit = try await child.waitForExit(timeout: Self.processLimit)
            #expect(exit.status == 78, "\(child.output)")
            let key = variable.dropFirst("HERALD_".count).lowercased().replacingOccurrences(of: "_", with: "-")
                .replacingOccurrences(of: "status-", with: "status.").replacingOccurrences(of: "aries-", with: "aries.")
                .replacingOccurrences(of: "store-", with: "store.")
            let output = try await child.waitFor(timeout: Self.outputLimit) { $0.contains(reason) ? $0 : nil } ?? child.output
            #expect(output.contains("configuration key \(key)"), "\(output)")
            #expect(output.contains(reason), "\(output)")
            #expect(!output.contains("NSCocoaErrorDomain"))
        }
    }

    @Test(arguments: ["--server-port", "--server-operations-port"])
    func aPortInUseExitsWith78NamingItsKey(flag: String) async throws {
        try #require(HeraldExecutable.exists)
        let taken = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(taken) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(taken, $0, length) == 0 && listen(taken, 1) == 0 && getsockname(taken, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        try await withTemporaryDirectory { directory in
            var arguments = ["serve", "--server-port", "0", flag, "\(port)"]
            if flag == "--server-port" { arguments.removeSubrange(1...2) }
            let child = try ChildProcess(executable: HeraldExecutable.path, arguments: arguments, directory: directory, environment: Self.environment)
            let exit = try await child.waitForExit(timeout: Self.processLimit)
            #expect(exit.status == 78, "\(child.output)")
            let key = flag.dropFirst(2).replacingOccurrences(of: "server-", with: "server.")
            let output = try await child.waitFor(timeout: Self.outputLimit) { $0.contains("cannot listen") ? $0 : nil } ?? child.output
            #expect(output.contains("\(key): cannot listen on 127.0.0.1:\(port): Address already in use"), "\(output)")
        }
    }

    /// `herald store rotate-key --generate` puts a new key first in the ring, re-seals and
    /// compacts the store; the node then starts with the new ring and reads what it held.
    @Test func rotateKeyResealsAStoppedStore() async throws {
        try #require(HeraldExecutable.exists)
        try await withTemporaryDirectory { directory in
            let fill = try ChildProcess(
                executable: URL(fileURLWithPath: HeraldExecutable.path).deletingLastPathComponent().appendingPathComponent("herald-dev").path,
                arguments: ["store", "fill", "--path", directory + "/data", "--count", "200"],
                environment: Self.environment
            )
            let filled = try await fill.waitForExit(timeout: Self.processLimit)
            try #require(filled.status == 0, "\(fill.output)")
            let rotate = try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["store", "rotate-key", "--path", directory + "/data", "--generate"],
                environment: Self.environment
            )
            let exit = try await rotate.waitForExit(timeout: Self.processLimit)
            #expect(exit.status == 0, "\(rotate.output)")
            #expect(rotate.output.contains(", 200 log entries and 0 markers"), "\(rotate.output)")
            let ring = try String(contentsOfFile: directory + "/data/store.key", encoding: .utf8)
            #expect(ring.split(separator: "\n").count == 1, "a store without a key file gets a ring of one new key")
            let verify = try ChildProcess(executable: HeraldExecutable.path, arguments: ["store", "verify", "--path", directory + "/data"], environment: Self.environment)
            let verified = try await verify.waitForExit(timeout: Self.processLimit)
            #expect(verified.status == 0, "\(verify.output)")
            #expect(verify.output.contains("log head 200"), "\(verify.output)")
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
            let exit = try await child.waitForExit(timeout: Self.processLimit)
            #expect(exit.status == 78)
            let output = try await child.waitFor(timeout: Self.outputLimit) { $0.contains("server.port") ? $0 : nil } ?? ""
            #expect(output.contains("HERALD_SERVER_PORT"))
            #expect(!FileManager.default.fileExists(atPath: directory + "/herald-data"), "a refused configuration must not create the store")
        }
    }

    static func listeningPort(in log: String) -> Int? {
        guard let range = log.range(of: "listening on http://127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }
}

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process whose combined output is collected as it arrives, for tests that run
/// `herald` the way an operator would, and the independent Python peers.
///
/// Spawned with `posix_spawn`, not Foundation's `Process`: on Swift 6.3's Linux Foundation,
/// `Process.run` over-reads a `dirent` while listing `/proc/self/fd` and crashes the test process
/// now and then (swiftlang/swift-corelibs-foundation#5472), more often the more children a run
/// spawns at once.
public final class ChildProcess: Sendable {
    public let processIdentifier: Int32
    private let collected = Mutex("")
    /// The wait status once the child has been reaped; reaped once, by whoever polls first.
    private let exit = Mutex<Int32?>(nil)
    /// Set once the output pipe reached its end.
    private let drained = Mutex(false)

    public init(executable: String, arguments: [String], directory: String? = nil, environment: [String: String]? = nil) throws {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw ChildProcessError(description: "pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        // The child must not inherit the test process's other descriptors (mock listeners,
        // clients' sockets, other children's pipes): a child holding them keeps connections
        // open that tests expect to see closed. Foundation's Process closes them too.
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        // Glibc's module does not export posix_spawn_file_actions_addchdir_np: a shell changes
        // directory and then becomes the program.
        let (program, programArguments) =
            directory.map { ("/bin/sh", ["-c", #"cd "$0" && exec "$@""#, $0, executable] + arguments) } ?? (executable, arguments)

        let argv = ([program] + programArguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, nil, argv, envp)
        close(pipe[1])
        guard result == 0 else {
            close(pipe[0])
            throw ChildProcessError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.processIdentifier = pid
        let reading = pipe[0]
        // A plain thread, not a task: the read blocks, and the cooperative pool has two threads.
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let text = String(decoding: buffer[..<count], as: UTF8.self)
                self.collected.withLock { $0 += text }
            }
            close(reading)
            self.drained.withLock { $0 = true }
        }.start()
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc
    /// module does not export (it is a GNU extension): looked up at run time.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    public var output: String { self.collected.withLock { $0 } }

    public var isRunning: Bool { self.reap() == nil }

    public func signal(_ signal: Int32) {
        guard self.isRunning else { return }
        kill(self.processIdentifier, signal)
    }

    /// Polls `condition` on the output every few milliseconds until it holds, the process ends or
    /// `timeout` passes; returns the last value.
    public func waitFor<T>(timeout: Duration, _ condition: (String) -> T?) async throws -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = condition(self.output) { return value }
            if !self.isRunning {
                // The reader thread may still be behind the exit: the output ends with the pipe.
                while !self.drained.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
                return condition(self.output)
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        return condition(self.output)
    }

    /// Waits up to `timeout` for the process to end, then SIGKILLs it if it has not; returns its
    /// exit status and whether it ended by a signal.
    public func waitForExit(timeout: Duration) async throws -> (status: Int32, signalled: Bool, timedOut: Bool) {
        let deadline = ContinuousClock.now + timeout
        while self.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let timedOut = self.isRunning
        if timedOut { self.signal(SIGKILL) }
        var status = self.reap()
        while status == nil {
            try await Task.sleep(for: .milliseconds(10))
            status = self.reap()
        }
        let wait = status ?? 0
        // So that `output` holds everything the process wrote once this returns.
        let drainDeadline = ContinuousClock.now + TestTime.bound(.seconds(30))
        while !self.drained.withLock({ $0 }), ContinuousClock.now < drainDeadline { try await Task.sleep(for: .milliseconds(2)) }
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift does not import as macros.
        let signalled = (wait & 0x7F) != 0 && (wait & 0x7F) != 0x7F
        return (signalled ? wait & 0x7F : (wait >> 8) & 0xFF, signalled, timedOut)
    }

    /// Runs `executable` to its end, blocking the calling thread (for synchronous set-up such as
    /// `ip` commands); returns its exit status and output.
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let child = try ChildProcess(executable: executable, arguments: arguments)
        while child.isRunning { usleep(1_000) }
        // The pipe ends once the child has; what is still buffered is read by then.
        for _ in 0..<1_000 where !child.drained.withLock({ $0 }) { usleep(1_000) }
        let status = child.exit.withLock { $0 } ?? 0
        return ((status >> 8) & 0xFF, child.output)
    }

    /// The wait status, reaping the child if it has ended; `nil` while it runs.
    private func reap() -> Int32? {
        self.exit.withLock { exit in
            if let exit { return exit }
            var status: Int32 = 0
            let result = waitpid(self.processIdentifier, &status, WNOHANG)
            if result == self.processIdentifier || (result < 0 && errno == ECHILD) {
                exit = status
            }
            return exit
        }
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

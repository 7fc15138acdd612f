import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process whose combined output is collected as it arrives, for tests that run
/// `herald` the way an operator would.
public final class ChildProcess: Sendable {
    private let process: Process
    private let collected = Mutex("")

    public init(executable: String, arguments: [String], directory: String? = nil, environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        self.process = process
        // A plain thread, not a task: the read blocks, and the cooperative pool has two threads.
        Thread { [self] in
            while true {
                let data = pipe.fileHandleForReading.availableData
                if data.isEmpty { break }
                self.collected.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
    }

    public var output: String { self.collected.withLock { $0 } }
    public var isRunning: Bool { self.process.isRunning }
    public var processIdentifier: Int32 { self.process.processIdentifier }

    public func signal(_ signal: Int32) {
        kill(self.process.processIdentifier, signal)
    }

    /// Polls `condition` on the output every few milliseconds until it holds, the process ends or
    /// `timeout` passes; returns the last value.
    public func waitFor<T>(timeout: Duration, _ condition: (String) -> T?) async throws -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = condition(self.output) { return value }
            if !self.process.isRunning { return condition(self.output) }
            try await Task.sleep(for: .milliseconds(2))
        }
        return condition(self.output)
    }

    /// Waits up to `timeout` for the process to end, then SIGKILLs it if it has not; returns its
    /// exit status and whether it ended by a signal.
    public func waitForExit(timeout: Duration) async throws -> (status: Int32, signalled: Bool, timedOut: Bool) {
        let deadline = ContinuousClock.now + timeout
        while self.process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let timedOut = self.process.isRunning
        if timedOut { self.signal(SIGKILL) }
        while self.process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        return (self.process.terminationStatus, self.process.terminationReason == .uncaughtSignal, timedOut)
    }
}

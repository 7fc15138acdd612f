public import HeraldCore

/// The registry as front doors use it: commands go into the log, lookups come from the view, and
/// `submit` returns only once the view has applied what it appended, so a caller reads its own
/// writes.
public struct Registry: Sendable {
    public let log: any CommandLog
    public let view: any RegistryView

    public init(log: any CommandLog, view: any RegistryView) {
        self.log = log
        self.view = view
    }

    /// Appends `commands` and waits (at most `applyTimeout`) until the local view has applied
    /// them; a view that cannot follow (a stuck follower) fails the caller with
    /// `StoreError.unavailable` instead of holding it forever.
    @discardableResult
    public func submit(_ commands: [RegistryCommand], applyTimeout: Duration = .seconds(30)) async throws -> [LogPosition] {
        try await self.view.waitForSourceClaim()
        let positions = try await self.log.append(commands)
        if let last = positions.last {
            try await self.waitForApplied(last, timeout: applyTimeout)
        }
        return positions
    }

    @discardableResult
    public func submit(_ command: RegistryCommand) async throws -> LogPosition {
        try await self.submit([command])[0]
    }

    /// Submits a command that is safe to repeat (a disable, or one whose version the caller chose
    /// above the stored one), on the partition's owner: when another node wrote the partition
    /// since this one applied it, the append is fenced, so it catches up and tries again, three
    /// times at most.
    public func submitCatchingUp(_ command: RegistryCommand) async throws {
        for attempt in 1...3 {
            do {
                try await self.submit(command)
                return
            } catch let error as StoreError where error.code == .fenced && attempt < 3 {
                try? await self.catchUp()
            }
        }
    }

    /// Waits (at most `timeout`) until the view has applied everything the log holds now: after a
    /// fenced append, so what is checked again sees the write that fenced it.
    public func catchUp(timeout: Duration = .seconds(10)) async throws {
        let head = try await self.log.head()
        guard head > 0, try self.view.appliedPosition() < head else { return }
        try await self.waitForApplied(head, timeout: timeout)
    }

    private func waitForApplied(_ position: LogPosition, timeout: Duration) async throws {
        guard try self.view.appliedPosition() < position else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await self.view.waitForApplied(beyond: position - 1) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw StoreError(.unavailable, "the view did not reach log position \(position) within \(timeout)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    public func record(for key: RegistrationKey) throws -> RegistryRecord? {
        try self.view.record(for: key)
    }

    public func registrations(scope: RegistrationScope, subject: [UInt8]) throws -> [Registration] {
        try self.view.registrations(scope: scope, subject: subject)
    }
}

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

    /// Appends `commands` and waits until the local view has applied them.
    @discardableResult
    public func submit(_ commands: [RegistryCommand]) async throws -> [LogPosition] {
        let positions = try await self.log.append(commands)
        if let last = positions.last {
            _ = try await self.view.waitForApplied(beyond: last - 1)
        }
        return positions
    }

    @discardableResult
    public func submit(_ command: RegistryCommand) async throws -> LogPosition {
        try await self.submit([command])[0]
    }

    public func record(for key: RegistrationKey) throws -> RegistryRecord? {
        try self.view.record(for: key)
    }

    public func registrations(scope: RegistrationScope, subject: [UInt8]) throws -> [Registration] {
        try self.view.registrations(scope: scope, subject: subject)
    }
}

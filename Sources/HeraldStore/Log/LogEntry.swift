public import HeraldCore

/// Position of a command in the log: 1 for the first command, 0 for "before the first".
/// In a cluster this is etcd's revision; positions increase but need not be contiguous there.
public typealias LogPosition = UInt64

/// A command together with where it stands in the log.
public struct LogEntry: Hashable, Sendable {
    public var position: LogPosition
    public var command: RegistryCommand

    public init(position: LogPosition, command: RegistryCommand) {
        self.position = position
        self.command = command
    }
}

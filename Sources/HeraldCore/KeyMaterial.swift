/// A type holding key material or credentials. Every way Swift prints a value — `description`,
/// `debugDescription`, a containing value's description, `dump` and other mirrors — shows only
/// the type's name, so no log line, error or test failure can carry the secret.
public protocol KeyMaterial: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {}

extension KeyMaterial {
    public var description: String { "\(Self.self)(redacted)" }
    public var debugDescription: String { self.description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

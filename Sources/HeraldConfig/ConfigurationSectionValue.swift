/// The typed configuration of one part of Herald (a front door's `gorush.*`, a provider's
/// `apps.<app>.apns.*`): it declares its keys next to its code and reads them itself, so the node
/// knows no key of theirs beyond the list it generates documentation and refuses unknown keys from.
public protocol ConfigurationSectionValue: Sendable, Hashable {
    /// The section's name: `gorush`; a provider's name under `apps.<app>.`: `apns`.
    static var section: String { get }
    /// Every key of the section, full names (templates for a provider: `apps.<app>.apns.topic`).
    static var keys: [ConfigurationKey] { get }
    /// The defaults: what an unset section means.
    init()
    /// Reads and checks every key; throws `ConfigurationError` naming the first bad one.
    init(reading section: ConfigurationSection) throws
}

extension ConfigurationSectionValue {
    fileprivate func isEqual(to other: any ConfigurationSectionValue) -> Bool {
        (other as? Self) == self
    }
}

/// Typed sections by name. An absent section equals its defaults, so a configuration read from
/// nothing equals one built in code.
public struct ConfigurationSections: Sendable, Hashable {
    private var values: [String: any ConfigurationSectionValue] = [:]

    public init() {}

    public subscript<Value: ConfigurationSectionValue>(_ type: Value.Type) -> Value {
        get { self.values[Value.section] as? Value ?? Value() }
        set { self.values[Value.section] = newValue }
    }

    /// The sections set explicitly, for a parent that keeps only configured ones.
    package var names: Set<String> { Set(self.values.keys) }

    /// Sets `value` as its section.
    public mutating func insert(_ value: any ConfigurationSectionValue) {
        self.values[type(of: value).section] = value
    }

    package mutating func remove(_ name: String) {
        self.values.removeValue(forKey: name)
    }

    package func value(named name: String) -> (any ConfigurationSectionValue)? {
        self.values[name]
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        for name in Set(lhs.values.keys).union(rhs.values.keys) {
            switch (lhs.values[name], rhs.values[name]) {
            case (let left?, let right?):
                guard left.isEqual(to: right) else { return false }
            case (let only?, nil), (nil, let only?):
                guard only.isEqual(to: type(of: only).init()) else { return false }
            case (nil, nil):
                break
            }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Sections equal to their defaults compare equal to absent ones, so only the count of
        // differing sections could be hashed consistently; none is.
        hasher.combine(0)
    }
}

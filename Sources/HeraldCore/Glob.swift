/// A shell-style name pattern as Sygnal matches app ids and endpoint hosts: `*` any run of
/// characters (dots too), `?` one character, everything else literal, matched against the whole
/// name.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    public let caseInsensitive: Bool
    private let scalars: [Unicode.Scalar]

    public init(_ pattern: String, caseInsensitive: Bool = false) {
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
        self.scalars = Array((caseInsensitive ? pattern.lowercased() : pattern).unicodeScalars)
    }

    /// Whether the pattern has a wildcard; a name without one matches only itself.
    public var hasWildcard: Bool { self.pattern.contains("*") || self.pattern.contains("?") }

    public var description: String { self.pattern }

    public func matches(_ name: String) -> Bool {
        let text = Array((self.caseInsensitive ? name.lowercased() : name).unicodeScalars)
        var p = 0
        var t = 0
        // Where the last `*` was and how much of the text it has taken: a mismatch later gives
        // that star one more character, so the match is linear in practice and never recursive.
        var star: (pattern: Int, text: Int)?
        while t < text.count {
            if p < self.scalars.count, self.scalars[p] == "?" || self.scalars[p] == text[t] {
                p += 1
                t += 1
            } else if p < self.scalars.count, self.scalars[p] == "*" {
                star = (p, t)
                p += 1
            } else if let last = star {
                p = last.pattern + 1
                t = last.text + 1
                star = (last.pattern, last.text + 1)
            } else {
                return false
            }
        }
        while p < self.scalars.count, self.scalars[p] == "*" { p += 1 }
        return p == self.scalars.count
    }
}

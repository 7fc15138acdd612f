/// Key arithmetic for etcd ranges.
public enum EtcdKey {
    /// The `range_end` that selects every key starting with `prefix`: the prefix with its last
    /// byte below 0xFF incremented and what follows dropped; `[0]` (every key) when there is none.
    public static func prefixEnd(_ prefix: [UInt8]) -> [UInt8] {
        var end = prefix
        while let last = end.last {
            if last < 0xFF {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return [0]
    }

    /// The smallest key after `key`: for paging a range.
    public static func successor(_ key: [UInt8]) -> [UInt8] { key + [0] }
}

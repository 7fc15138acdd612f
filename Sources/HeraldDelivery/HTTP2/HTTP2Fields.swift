public import NIOHPACK

/// The header fields of one HTTP/2 request or response head, names and values in one byte
/// array: a request is laid out here once and handed to libnghttp2 by pointer, and an answer's
/// fields are kept as they arrive, without a string each (`HPACKHeaders` holds two strings a
/// field, and a push paid for them twice: once to build its request, once to read it back into
/// bytes for libnghttp2).
///
/// Each field is a record: a flags byte (whether the peer may index it), the name's and the
/// value's lengths (4 bytes each, little-endian), the name, the value.
public struct HTTP2Fields: Sendable, Hashable {
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String
        /// Whether the peer may keep it in its HPACK table; values unique to one request would
        /// only churn it.
        public var indexable: Bool
    }

    private(set) var storage: [UInt8] = []
    /// Fields held.
    public private(set) var count = 0

    fileprivate static let recordHeader = 9
    fileprivate static let notIndexable: UInt8 = 1

    public init() {}

    /// Room for fields of about `bytes` bytes of names and values.
    public init(reservingBytes bytes: Int) {
        self.storage.reserveCapacity(bytes)
    }

    /// The fields of `headers`, in order.
    public init(_ headers: HPACKHeaders) {
        for (name, value, indexing) in headers {
            self.add(name: name, value: value, indexable: indexing == .indexable)
        }
    }

    /// Fields indexable by the peer, in order.
    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { self.add(name: name, value: value) }
    }

    public var isEmpty: Bool { self.count == 0 }

    public mutating func add(name: String, value: String, indexable: Bool = true) {
        var name = name
        var value = value
        name.withUTF8 { name in
            value.withUTF8 { value in self.add(name: name, value: value, indexable: indexable) }
        }
    }

    /// A field whose value is `first` followed by `second`, without a string made of the two.
    mutating func add(name: String, value first: String, _ second: String, indexable: Bool = true) {
        var name = name
        var first = first
        var second = second
        name.withUTF8 { name in
            first.withUTF8 { first in
                second.withUTF8 { second in
                    self.appendRecordHeader(indexable: indexable, nameLength: name.count, valueLength: first.count + second.count)
                    self.storage.append(contentsOf: name)
                    self.storage.append(contentsOf: first)
                    self.storage.append(contentsOf: second)
                }
            }
        }
        self.count += 1
    }

    /// A field from bytes, as a peer sent it.
    mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, indexable: Bool = true) {
        self.appendRecordHeader(indexable: indexable, nameLength: name.count, valueLength: value.count)
        self.storage.append(contentsOf: name)
        self.storage.append(contentsOf: value)
        self.count += 1
    }

    /// No fields, keeping the room they took.
    public mutating func removeAll() {
        self.storage.removeAll(keepingCapacity: true)
        self.count = 0
    }

    /// The same fields in storage of their own size.
    public var compacted: HTTP2Fields {
        var copy = HTTP2Fields()
        // A new buffer: `Array(self.storage)` would share this one, and the next `removeAll`
        // here would then copy it at full capacity.
        copy.storage = self.storage.withUnsafeBufferPointer { bytes in
            [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, initialized in
                initialized = buffer.initialize(from: bytes).1
            }
        }
        copy.count = self.count
        return copy
    }

    /// Every field of `other`, after these.
    public mutating func add(contentsOf other: HTTP2Fields) {
        self.storage.append(contentsOf: other.storage)
        self.count += other.count
    }

    /// The flags byte, then both lengths in one append rather than a byte at a time.
    private mutating func appendRecordHeader(indexable: Bool, nameLength: Int, valueLength: Int) {
        // Reading trusts the lengths; a field this large comes from no peer (libnghttp2 and the
        // HTTP/1 parser bound them) and from no request Herald builds.
        precondition(nameLength <= Int(UInt32.max) && valueLength <= Int(UInt32.max), "a header field of 4 GiB or more")
        self.storage.append(indexable ? 0 : Self.notIndexable)
        let lengths = (UInt64(UInt32(truncatingIfNeeded: nameLength)) | UInt64(UInt32(truncatingIfNeeded: valueLength)) << 32).littleEndian
        withUnsafeBytes(of: lengths) { self.storage.append(contentsOf: $0) }
    }

    /// The fields in the storage's bytes, valid only inside `withUnsafeFields`.
    struct UnsafeFields: Sequence, IteratorProtocol {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        mutating func next() -> (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, indexable: Bool)? {
            guard let base = self.bytes.baseAddress, self.offset + HTTP2Fields.recordHeader <= self.bytes.count else { return nil }
            let nameLength = HTTP2Fields.length(self.bytes, at: self.offset + 1)
            let valueLength = HTTP2Fields.length(self.bytes, at: self.offset + 5)
            let nameStart = self.offset + HTTP2Fields.recordHeader
            let valueStart = nameStart + nameLength
            let indexable = self.bytes[self.offset] & HTTP2Fields.notIndexable == 0
            self.offset = valueStart + valueLength
            return (UnsafeBufferPointer(start: base + nameStart, count: nameLength), UnsafeBufferPointer(start: base + valueStart, count: valueLength), indexable)
        }
    }

    /// Calls `body` with the fields' names and values as bytes, valid only during the call.
    func withUnsafeFields<Result>(_ body: (UnsafeFields) throws -> Result) rethrows -> Result {
        try self.storage.withUnsafeBufferPointer { try body(UnsafeFields(bytes: $0)) }
    }

    /// Calls `body` with each field's name and value bytes and whether it is indexable, in
    /// order; the pointers are valid only during the call.
    func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, Bool) throws -> Void) rethrows {
        try self.withUnsafeFields { fields in
            for field in fields { try body(field.name, field.value, field.indexable) }
        }
    }

    fileprivate static func length(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }

    /// The value of the first field called `name` (compared without regard to ASCII case, as
    /// `HPACKHeaders.first(name:)` does).
    public func first(name: String) -> String? {
        var found: String?
        var wanted = name
        wanted.withUTF8 { wanted in
            self.forEachField { fieldName, value, _ in
                guard found == nil, Self.equalIgnoringASCIICase(fieldName, wanted) else { return }
                found = String(decoding: value, as: UTF8.self)
            }
        }
        return found
    }

    /// The first `:status` of a response head, read from its bytes; `nil` without one or when
    /// it is not three digits.
    var status: Int? {
        self.withUnsafeFields { fields in
            guard let field = fields.first(where: { $0.name.count == 7 && $0.name.elementsEqual(":status".utf8) }), field.value.count == 3 else { return nil }
            var code = 0
            for byte in field.value {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                code = code * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return code
        }
    }

    private static func equalIgnoringASCIICase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in a.indices where a[index] | 0x20 != b[index] | 0x20 || (a[index] != b[index] && !Self.isASCIILetter(a[index])) {
            return false
        }
        return true
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// Each field as strings, in order.
    public var fields: [Field] {
        var fields: [Field] = []
        fields.reserveCapacity(self.count)
        self.forEachField { name, value, indexable in
            fields.append(Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self), indexable: indexable))
        }
        return fields
    }

    /// The same fields for NIOHTTP2. Names must be ASCII, as `HPACKHeaders` requires.
    public var hpackHeaders: HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(self.count)
        for field in self.fields {
            headers.add(name: field.name, value: field.value, indexing: field.indexable ? .indexable : .nonIndexable)
        }
        return headers
    }
}

extension HTTP2Fields: CustomStringConvertible {
    public var description: String {
        "[" + self.fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
    }
}

extension HTTP2Fields: ExpressibleByDictionaryLiteral {
    /// Fields indexable by the peer, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

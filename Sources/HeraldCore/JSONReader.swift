/// A pull reader over JSON text (RFC 8259): the caller walks objects and arrays and reads each
/// value as the type it expects, so a request body becomes its fields in one pass, without the
/// tree and the keyed-container lookups of Foundation's `JSONDecoder` (a tenth of a 1-token
/// push's CPU). Integers are read from their digits, so 64-bit values stay exact.
///
/// Strict: anything outside the grammar, a value of another type than the one asked for, an
/// integer with a fraction or an exponent, invalid UTF-8, a lone surrogate escape or nesting
/// deeper than `maximumDepth` is a `JSONReadError`.
public struct JSONReader {
    /// Deeper nesting is refused: a body of brackets must not exhaust the stack.
    public static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads `bytes` with `body`, which must consume exactly one value; only whitespace may
    /// follow it.
    public static func read<T>(_ bytes: [UInt8], _ body: (inout JSONReader) throws(JSONReadError) -> T) throws(JSONReadError) -> T {
        var reader = JSONReader(bytes)
        let value = try body(&reader)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("text after the value") }
        return value
    }

    // MARK: Structure

    /// Calls `field` with each key of the object at the reader; `field` must consume its value.
    public mutating func readObject(_ field: (inout JSONReader, String) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try self.enter(UInt8(ascii: "{"), expected: "an object")
        defer { self.depth -= 1 }
        self.skipWhitespace()
        if self.peek == UInt8(ascii: "}") {
            self.index += 1
            return
        }
        while true {
            self.skipWhitespace()
            guard self.peek == UInt8(ascii: "\"") else { throw self.error("an object key") }
            let key = try self.readString()
            self.skipWhitespace()
            guard self.peek == UInt8(ascii: ":") else { throw self.error("':' after an object key") }
            self.index += 1
            try field(&self, key)
            self.skipWhitespace()
            switch self.peek {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "}"):
                self.index += 1
                return
            default: throw self.error("',' or '}' in an object")
            }
        }
    }

    /// Calls `element` for each element of the array at the reader; `element` must consume it.
    public mutating func readArray(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try self.enter(UInt8(ascii: "["), expected: "an array")
        defer { self.depth -= 1 }
        self.skipWhitespace()
        if self.peek == UInt8(ascii: "]") {
            self.index += 1
            return
        }
        while true {
            try element(&self)
            self.skipWhitespace()
            switch self.peek {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "]"):
                self.index += 1
                return
            default: throw self.error("',' or ']' in an array")
            }
        }
    }

    /// Consumes a `null` and returns `true`, or leaves any other value for the caller.
    public mutating func readNull() -> Bool {
        self.skipWhitespace()
        guard self.peek == UInt8(ascii: "n"), self.matches("null") else { return false }
        self.index += 4
        return true
    }

    // MARK: Scalars

    public mutating func readString() throws(JSONReadError) -> String {
        self.skipWhitespace()
        guard self.peek == UInt8(ascii: "\"") else { throw self.error("a string") }
        self.index += 1
        let start = self.index
        // Most strings have no escape: they are their own bytes, checked as UTF-8 once.
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: self.bytes[start..<self.index], as: UTF8.self)
                guard let text else { throw self.error("valid UTF-8 in a string") }
                self.index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw self.error("no control character in a string") }
            self.index += 1
        }
        var utf8 = Array(self.bytes[start..<self.index])
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw self.error("valid UTF-8 in a string") }
                return text
            case UInt8(ascii: "\\"):
                try self.readEscape(into: &utf8)
            case ..<0x20:
                throw self.error("no control character in a string")
            default:
                utf8.append(byte)
            }
        }
        throw self.error("the end of a string")
    }

    public mutating func readBool() throws(JSONReadError) -> Bool {
        self.skipWhitespace()
        if self.matches("true") {
            self.index += 4
            return true
        }
        if self.matches("false") {
            self.index += 5
            return false
        }
        throw self.error("true or false")
    }

    /// An integer written without a fraction or an exponent, as Go's `encoding/json` reads one.
    public mutating func readInt64() throws(JSONReadError) -> Int64 {
        self.skipWhitespace()
        let start = self.index
        let (isInteger, end) = try self.scanNumber()
        guard isInteger else { throw self.error("an integer", at: start) }
        var value: Int64 = 0
        let negative = self.bytes[start] == UInt8(ascii: "-")
        for byte in self.bytes[(negative ? start + 1 : start)..<end] {
            let digit = Int64(byte &- UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw self.error("an integer within 64 bits", at: start) }
            value = next
        }
        self.index = end
        return value
    }

    public mutating func readInt() throws(JSONReadError) -> Int {
        let start = self.index
        guard let value = Int(exactly: try self.readInt64()) else { throw self.error("an integer within the platform's range", at: start) }
        return value
    }

    public mutating func readDouble() throws(JSONReadError) -> Double {
        self.skipWhitespace()
        let start = self.index
        let (_, end) = try self.scanNumber()
        guard let value = Double(String(decoding: self.bytes[start..<end], as: UTF8.self)), value.isFinite else {
            throw self.error("a finite number", at: start)
        }
        self.index = end
        return value
    }

    /// Any value, kept as a `JSONValue`; duplicate object keys keep their last value.
    public mutating func readValue() throws(JSONReadError) -> JSONValue {
        self.skipWhitespace()
        switch self.peek {
        case UInt8(ascii: "{"):
            var pairs: [(String, JSONValue)] = []
            // Found by hash: a scan per key would make a body of many keys cost quadratic time.
            var positions: [String: Int] = [:]
            try self.readObject { reader, key throws(JSONReadError) in
                let value = try reader.readValue()
                if let existing = positions[key] {
                    pairs[existing].1 = value
                } else {
                    positions[key] = pairs.count
                    pairs.append((key, value))
                }
            }
            return .object(pairs)
        case UInt8(ascii: "["):
            var values: [JSONValue] = []
            try self.readArray { reader throws(JSONReadError) in values.append(try reader.readValue()) }
            return .array(values)
        case UInt8(ascii: "\""):
            return .string(try self.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try self.readBool())
        case UInt8(ascii: "n"):
            guard self.readNull() else { throw self.error("a value") }
            return .null
        default:
            return .number(try self.readDouble())
        }
    }

    /// Checks and passes over any value, building nothing: for fields the caller ignores.
    public mutating func skipValue() throws(JSONReadError) {
        self.skipWhitespace()
        switch self.peek {
        case UInt8(ascii: "{"):
            try self.readObject { reader, _ throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "["):
            try self.readArray { reader throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "\""):
            _ = try self.readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try self.readBool()
        case UInt8(ascii: "n"):
            guard self.readNull() else { throw self.error("a value") }
        default:
            let (_, end) = try self.scanNumber()
            self.index = end
        }
    }

    /// An object of any values, keyed by name; a duplicate key keeps its last value.
    public mutating func readDictionary() throws(JSONReadError) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        try self.readObject { reader, key throws(JSONReadError) in fields[key] = try reader.readValue() }
        return fields
    }

    public mutating func readStrings() throws(JSONReadError) -> [String] {
        var strings: [String] = []
        try self.readArray { reader throws(JSONReadError) in strings.append(try reader.readString()) }
        return strings
    }

    /// `nil` for `null`, else the value `read` reads.
    public mutating func readOptional<T>(_ read: (inout JSONReader) throws(JSONReadError) -> T) throws(JSONReadError) -> T? {
        self.readNull() ? nil : try read(&self)
    }

    // MARK: Lexing

    private var peek: UInt8? {
        self.index < self.bytes.count ? self.bytes[self.index] : nil
    }

    private mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): self.index += 1
            default: return
            }
        }
    }

    private func matches(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard self.index + count <= self.bytes.count else { return false }
        return literal.withUTF8Buffer { expected in
            var offset = 0
            while offset < count {
                guard self.bytes[self.index + offset] == expected[offset] else { return false }
                offset += 1
            }
            return true
        }
    }

    private mutating func enter(_ opening: UInt8, expected: String) throws(JSONReadError) {
        self.skipWhitespace()
        guard self.peek == opening else { throw self.error(expected) }
        guard self.depth < Self.maximumDepth else { throw self.error("nesting within \(Self.maximumDepth) levels") }
        self.depth += 1
        self.index += 1
    }

    /// Checks the number at the reader against RFC 8259's grammar without consuming it; returns
    /// whether it is an integer and where it ends.
    private func scanNumber() throws(JSONReadError) -> (isInteger: Bool, end: Int) {
        var position = self.index
        func digits() -> Int {
            let start = position
            while position < self.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self.bytes[position]) { position += 1 }
            return position - start
        }
        if position < self.bytes.count, self.bytes[position] == UInt8(ascii: "-") { position += 1 }
        let leading = position
        guard digits() > 0 else { throw self.error("a number") }
        guard self.bytes[leading] != UInt8(ascii: "0") || position == leading + 1 else { throw self.error("no leading zero in a number") }
        var isInteger = true
        if position < self.bytes.count, self.bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw self.error("digits after a decimal point") }
            isInteger = false
        }
        if position < self.bytes.count, self.bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < self.bytes.count, self.bytes[position] == UInt8(ascii: "+") || self.bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw self.error("digits in an exponent") }
            isInteger = false
        }
        return (isInteger, position)
    }

    private mutating func readEscape(into utf8: inout [UInt8]) throws(JSONReadError) {
        guard let byte = self.peek else { throw self.error("an escape") }
        self.index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try self.readHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard self.matches("\\u") else { throw self.error("a low surrogate after a high one") }
                self.index += 2
                let low = UInt32(try self.readHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw self.error("a low surrogate after a high one") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw self.error("no lone low surrogate") }
            utf8.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw self.error("a valid escape")
        }
    }

    private mutating func readHex4() throws(JSONReadError) -> UInt16 {
        guard self.index + 4 <= self.bytes.count else { throw self.error("four hex digits") }
        var value: UInt16 = 0
        for byte in self.bytes[self.index..<self.index + 4] {
            guard let digit = Hex.nibble(byte) else { throw self.error("four hex digits") }
            value = value << 4 | UInt16(digit)
        }
        self.index += 4
        return value
    }

    private func error(_ expected: String, at offset: Int? = nil) -> JSONReadError {
        JSONReadError(expected: expected, offset: offset ?? self.index)
    }
}

/// JSON text that is not what the reader was asked for: what it expected and at which byte.
public struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var expected: String
    public var offset: Int

    public init(expected: String, offset: Int) {
        self.expected = expected
        self.offset = offset
    }

    public var description: String { "expected \(self.expected) at byte \(self.offset)" }
}

extension JSONValue {
    /// Parses one JSON text.
    public init(parsing bytes: [UInt8]) throws(JSONReadError) {
        self = try JSONReader.read(bytes) { reader throws(JSONReadError) in try reader.readValue() }
    }
}

/// A fuzz input laid out as a readable HTTP message, so seeds can be written by hand: a first
/// line, `name: value` header lines, an empty line, then the body. Lines end with LF (a CR before
/// it is dropped); a header line without a colon is skipped.
public struct HTTPMessageText {
    public var firstLine: String
    /// Lower-cased names mapped to every value sent under them, as Herald's routes pass headers.
    public var headers: [String: [String]]
    public var body: [UInt8]

    public init(_ bytes: [UInt8]) {
        var lines: [String] = []
        var start = 0
        var index = 0
        var bodyStart = bytes.count
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                var line = bytes[start..<index]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                start = index + 1
                if line.isEmpty, !lines.isEmpty {
                    bodyStart = start
                    break
                }
                lines.append(String(decoding: line, as: UTF8.self))
            }
            index += 1
        }
        if bodyStart == bytes.count, start < bytes.count {
            lines.append(String(decoding: bytes[start...], as: UTF8.self))
        }
        self.firstLine = lines.first ?? ""
        var headers: [String: [String]] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers[name, default: []].append(String(value))
        }
        self.headers = headers
        self.body = Array(bytes[bodyStart...])
    }
}

import SwiftProtobuf

/// What is wrong with a proto3 JSON body, in the body's terms rather than swift-protobuf's case
/// names.
enum ProtoJSONFailure {
    static func describe(_ error: any Error, body: [UInt8]) -> String {
        guard let error = error as? JSONDecodingError else { return "\(error)" }
        switch error {
        case .invalidUTF8:
            // swift-protobuf also throws this for a number no Double holds (1e999), so only say
            // UTF-8 when the bytes are not.
            guard String(validating: body, as: UTF8.self) != nil else { return "the body is not UTF-8" }
            return "a number is out of range"
        case .numberRange: return "a number is out of its field's range"
        case .malformedNumber, .leadingZero: return "a number is malformed"
        case .malformedBool: return "a boolean is not true or false"
        case .malformedString: return "a string is malformed"
        case .unrecognizedEnumValue: return "pushType is not IOS, AND or IOD"
        case .unknownField(let name): return "unknown field '\(name.prefix(64))'"
        case .illegalNull: return "null where a value is needed"
        case .truncated: return "the JSON ends early"
        case .trailingGarbage: return "text follows the JSON object"
        case .schemaMismatch: return "a field has the wrong type"
        case .messageDepthLimit: return "the JSON nests too deep"
        default: return "the JSON is malformed"
        }
    }
}

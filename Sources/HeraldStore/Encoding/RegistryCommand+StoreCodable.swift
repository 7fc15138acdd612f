public import HeraldCore

/// Format 1: a tag byte, then the case's fields. Tags are part of the log format: never reuse one.
extension RegistryCommand: StoreCodable {
    public static var formatVersion: UInt8 { 1 }

    private enum Tag: UInt8 {
        case register = 1
        case unregister = 2
        case disableToken = 3
    }

    public func encode(into writer: inout BinaryWriter) {
        switch self {
        case .register(let registration):
            writer.write(Tag.register.rawValue)
            registration.encodeFields(into: &writer)
        case .unregister(let key, let version):
            writer.write(Tag.unregister.rawValue)
            key.encodeFields(into: &writer)
            writer.write(version)
        case .disableToken(let key, let token, let reason):
            writer.write(Tag.disableToken.rawValue)
            key.encodeFields(into: &writer)
            writer.writeString(token)
            writer.writeString(reason)
        }
    }

    public static func decode(from reader: inout BinaryReader, formatVersion: UInt8) throws(StoreError) -> RegistryCommand {
        let rawTag = try reader.read(UInt8.self)
        guard let tag = Tag(rawValue: rawTag) else {
            throw StoreError(.unsupportedFormat, "RegistryCommand: unknown command tag \(rawTag)")
        }
        switch tag {
        case .register:
            return .register(try Registration.decodeFields(from: &reader))
        case .unregister:
            return .unregister(try RegistrationKey.decodeFields(from: &reader), version: try reader.read(UInt64.self))
        case .disableToken:
            return .disableToken(
                try RegistrationKey.decodeFields(from: &reader),
                token: try reader.readString(),
                reason: try reader.readString()
            )
        }
    }
}

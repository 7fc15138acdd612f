import HeraldCore

extension Device {
    func encodeFields(into writer: inout BinaryWriter) {
        writer.write(self.platform.rawValue)
        writer.writeString(self.token)
        writer.writeOptionalString(self.topic)
        writer.writeOptionalString(self.app)
    }

    static func decodeFields(from reader: inout BinaryReader) throws(StoreError) -> Device {
        Device(
            platform: Platform(rawValue: try reader.read(UInt8.self)),
            token: try reader.readString(),
            topic: try reader.readOptionalString(),
            app: try reader.readOptionalString()
        )
    }
}

extension Registration {
    func encodeFields(into writer: inout BinaryWriter) {
        self.key.encodeFields(into: &writer)
        writer.write(self.version)
        self.device.encodeFields(into: &writer)
        writer.write(self.enabled)
        writer.writeBlob(self.attributes)
    }

    static func decodeFields(from reader: inout BinaryReader) throws(StoreError) -> Registration {
        Registration(
            key: try RegistrationKey.decodeFields(from: &reader),
            version: try reader.read(UInt64.self),
            device: try Device.decodeFields(from: &reader),
            enabled: try reader.readBool(),
            attributes: try reader.readBlob()
        )
    }
}


import HeraldCore

/// How the view stores a record. The key is the LMDB key and is not repeated in the value.
///
/// Format 1: format ‖ version ‖ registered flag ‖ (device ‖ enabled ‖ attributes).
/// A registration's own version always equals the record's, so it is stored once.
extension RegistryRecord {
    static let storedFormatVersion: UInt8 = 1

    func storedValue() -> [UInt8] {
        var writer = BinaryWriter()
        writer.write(Self.storedFormatVersion)
        writer.write(self.version)
        if let registration = self.registration {
            writer.write(true)
            registration.device.encodeFields(into: &writer)
            writer.write(registration.enabled)
            writer.writeBlob(registration.attributes)
        } else {
            writer.write(false)
        }
        return writer.bytes
    }

    init(key: RegistrationKey, storedValue bytes: UnsafeRawBufferPointer) throws(StoreError) {
        var reader = BinaryReader(bytes, decoding: "RegistryRecord")
        let format = try reader.read(UInt8.self)
        guard format == Self.storedFormatVersion else {
            throw StoreError(.unsupportedFormat, "RegistryRecord format version \(format); this build reads \(Self.storedFormatVersion)")
        }
        let version = try reader.read(UInt64.self)
        var registration: Registration?
        if try reader.readBool() {
            registration = Registration(
                key: key,
                version: version,
                device: try Device.decodeFields(from: &reader),
                enabled: try reader.readBool(),
                attributes: try reader.readBlob()
            )
        }
        try reader.expectEnd()
        self.init(version: version, registration: registration)
    }
}

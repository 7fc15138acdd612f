public import HeraldCore

/// Layout: scope ‖ subject length (1 byte) ‖ subject ‖ installation id (UTF-8, to the end).
/// All installations of one subject are adjacent, so a prefix scan lists them.
extension RegistrationKey: StoreKey {
    public var storeKeyBytes: [UInt8] {
        var writer = BinaryWriter(capacity: 2 + self.subject.count + self.installationID.utf8.count)
        writer.write(self.scope.rawValue)
        writer.write(UInt8(self.subject.count))
        writer.writeRaw(self.subject)
        writer.writeRaw(self.installationID.utf8)
        return writer.bytes
    }

    /// The common prefix of every key of `subject` in `scope`.
    public static func prefix(scope: RegistrationScope, subject: [UInt8]) -> [UInt8] {
        [scope.rawValue, UInt8(truncatingIfNeeded: subject.count)] + subject
    }

    public init(storeKeyBytes bytes: UnsafeRawBufferPointer) throws(StoreError) {
        var reader = BinaryReader(bytes, decoding: "RegistrationKey")
        let scope = RegistrationScope(rawValue: try reader.read(UInt8.self))
        let length = Int(try reader.read(UInt8.self))
        let subject = try reader.readRaw(count: length)
        let rest = reader.readRest()
        guard let installationID = String(validating: rest, as: UTF8.self) else {
            throw StoreError(.corrupt, "RegistrationKey: installation id is not UTF-8")
        }
        do {
            try self.init(scope: scope, subject: subject, installationID: installationID)
        } catch {
            throw StoreError(.corrupt, "RegistrationKey: \(error.message)")
        }
    }

    func encodeFields(into writer: inout BinaryWriter) {
        writer.writeBlob(self.storeKeyBytes)
    }

    static func decodeFields(from reader: inout BinaryReader) throws(StoreError) -> RegistrationKey {
        let bytes = try reader.readBlob()
        do {
            return try bytes.withUnsafeBytes { buffer in try RegistrationKey(storeKeyBytes: buffer) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.corrupt, "RegistrationKey: \(error)")
        }
    }
}

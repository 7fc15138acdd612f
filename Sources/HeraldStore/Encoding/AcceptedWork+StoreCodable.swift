public import HeraldCore

/// Layout (version 1): owner ‖ accepted-at (ms) ‖ deadline (s) ‖ kind (1 push, 2 document) ‖
/// the item. A push keeps every field the delivery pool reads, so a resumed push is the one
/// that was acknowledged.
extension AcceptedWork: StoreCodable {
    public static let formatVersion: UInt8 = 1

    private enum Kind: UInt8 {
        case push = 1
        case document = 2
    }

    public func encode(into writer: inout BinaryWriter) {
        writer.writeString(self.owner)
        writer.write(UInt64(bitPattern: self.acceptedAt))
        writer.write(UInt64(bitPattern: self.deadline))
        switch self.item {
        case .push(let push):
            writer.write(Kind.push.rawValue)
            push.encodeFields(into: &writer)
        case .document(let bytes):
            writer.write(Kind.document.rawValue)
            writer.writeBlob(bytes)
        }
    }

    public static func decode(from reader: inout BinaryReader, formatVersion: UInt8) throws(StoreError) -> AcceptedWork {
        let owner = try reader.readString()
        let acceptedAt = Int64(bitPattern: try reader.read(UInt64.self))
        let deadline = Int64(bitPattern: try reader.read(UInt64.self))
        let item: Item
        switch Kind(rawValue: try reader.read(UInt8.self)) {
        case .push: item = .push(try PushNotification.decodeFields(from: &reader))
        case .document: item = .document(try reader.readBlob())
        case nil: throw StoreError(.corrupt, "AcceptedWork: unknown kind of item")
        }
        return AcceptedWork(owner: owner, acceptedAt: acceptedAt, deadline: deadline, item: item)
    }
}

extension PushNotification {
    private enum Field: UInt8 {
        case priority = 1
        case expiration = 2
        case collapseID = 3
        case pushType = 4
        case registration = 5
        case callerReference = 6
        case deadline = 7
    }

    /// The fixed fields, then each optional one present as its tag and its bytes, so a field
    /// added later is a new tag an older build skips, not a new layout.
    func encodeFields(into writer: inout BinaryWriter) {
        writer.writeString(self.id)
        self.device.encodeFields(into: &writer)
        writer.writeBlob(self.payload)
        func field(_ tag: Field, _ encode: (inout BinaryWriter) -> Void) {
            var value = BinaryWriter()
            encode(&value)
            writer.write(tag.rawValue)
            writer.writeBlob(value.bytes)
        }
        if let priority = self.priority { field(.priority) { $0.writeString(priority.rawValue) } }
        if let expiration = self.expiration { field(.expiration) { $0.write(UInt64(bitPattern: expiration)) } }
        if let collapseID = self.collapseID { field(.collapseID) { $0.writeString(collapseID) } }
        if let pushType = self.pushType { field(.pushType) { $0.writeString(pushType) } }
        if let registration = self.registration { field(.registration) { registration.encodeFields(into: &$0) } }
        if let reference = self.callerReference { field(.callerReference) { $0.writeString(reference) } }
        if let deadline = self.deadline {
            let (seconds, attoseconds) = deadline.components
            let milliseconds = seconds.multipliedReportingOverflow(by: 1000).overflow ? Int64.max : seconds * 1000 + attoseconds / 1_000_000_000_000_000
            field(.deadline) { $0.write(UInt64(bitPattern: milliseconds)) }
        }
        writer.write(UInt8(0))
    }

    static func decodeFields(from reader: inout BinaryReader) throws(StoreError) -> PushNotification {
        var push = PushNotification(id: try reader.readString(), device: try Device.decodeFields(from: &reader), payload: try reader.readBlob())
        while true {
            let tag = try reader.read(UInt8.self)
            if tag == 0 { return push }
            let bytes = try reader.readBlob()
            // A field a newer build added: skipped, the push is still delivered.
            guard let field = Field(rawValue: tag) else { continue }
            do {
                try bytes.withUnsafeBytes { buffer in
                    var value = BinaryReader(buffer, decoding: "PushNotification field \(tag)")
                    try Self.decode(field, from: &value, into: &push)
                    try value.expectEnd()
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(.corrupt, "PushNotification field \(tag): \(error)")
            }
        }
    }

    private static func decode(_ field: Field, from reader: inout BinaryReader, into push: inout PushNotification) throws(StoreError) {
        switch field {
        case .priority:
            let raw = try reader.readString()
            guard let priority = Priority(rawValue: raw) else { throw StoreError(.corrupt, "PushNotification: unknown priority \(raw)") }
            push.priority = priority
        case .expiration: push.expiration = Int64(bitPattern: try reader.read(UInt64.self))
        case .collapseID: push.collapseID = try reader.readString()
        case .pushType: push.pushType = try reader.readString()
        case .registration: push.registration = try RegistrationKey.decodeFields(from: &reader)
        case .callerReference: push.callerReference = try reader.readString()
        case .deadline: push.deadline = .milliseconds(Int64(bitPattern: try reader.read(UInt64.self)))
        }
    }
}

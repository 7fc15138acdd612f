import Foundation

/// Whether `bytes` are one JSON text, as the providers and peers Herald writes it for parse it.
public func isJSON(_ bytes: [UInt8]) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
}

import HeraldConfig
public import HeraldFrontDoor

extension HeraldConfiguration {
    /// The configuration reference table of `docs/configuration.md`, generated from `keys`; a test
    /// keeps the document and this list identical.
    public static func markdownReference(frontDoors: [any FrontDoor.Type] = HeraldNode.frontDoors) -> String {
        var lines = [
            "| key | environment variable | flag | value | default | description |",
            "|---|---|---|---|---|---|",
        ]
        for key in Self.keys(frontDoors: frontDoors) {
            let defaultValue = key.defaultValue.map { "`\($0)`" } ?? "unset"
            let secret = key.isSecret ? " Secret: masked in `--print-config` and never logged." : ""
            lines.append(
                "| `\(key.name)` | `\(key.environmentVariable)` | `\(key.flag)` | \(key.kind.summary) | \(defaultValue) | \(key.help)\(secret) |"
            )
        }
        return lines.joined(separator: "\n")
    }
}

/// What a binary says of itself: `herald --version`, the status page, the package's name.
public enum HeraldBuildInfo {
    /// Herald's release; `packaging/build-deb.sh` names the package after it.
    public static let version = "0.16.0"
    /// The git commit built from (12 hex digits, `-dirty` with uncommitted changes to tracked
    /// files), `HERALD_COMMIT` when set at build time, else `unknown`.
    public static let commit = builtCommit
    /// `herald 0.16.0 (commit 0123456789ab)`.
    public static var line: String { "herald \(Self.version) (commit \(Self.commit))" }
}

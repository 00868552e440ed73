/// The version the daemon reports in its Version property and `--version`.
public enum ProgressVersion {
    public static let current = "0.1.0"
}

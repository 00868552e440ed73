extension StringProtocol {
    /// The text without the white space (spaces, tabs, line ends) at either end: what a
    /// tool pads its columns with.
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

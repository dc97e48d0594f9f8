/// An undirected edge between two landmarks, by index, mirroring the iOS `Connection`
/// (whose fields are `NSUInteger`; here they are `Int`, so they index landmark arrays directly).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct Connection: Codable, Sendable, Hashable {
    /// Index of the first landmark.
    public let start: Int
    /// Index of the second landmark.
    public let end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }
}

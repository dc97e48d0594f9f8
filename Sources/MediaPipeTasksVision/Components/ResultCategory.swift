/// A classification result, mirroring the iOS `ResultCategory` (used for handedness).
///
/// JSON keys: `index`, `score`, `categoryName`, `displayName` (the last two omitted when nil).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct ResultCategory: Codable, Sendable, Equatable {
    /// The label's index in the model's label list; -1 when unknown.
    public var index: Int
    /// Confidence in [0, 1].
    public var score: Float
    /// The label, for example "Left" or "Right".
    public var categoryName: String?
    /// The label as shown to a user.
    public var displayName: String?

    public init(index: Int, score: Float, categoryName: String?, displayName: String?) {
        self.index = index
        self.score = score
        self.categoryName = categoryName
        self.displayName = displayName
    }
}

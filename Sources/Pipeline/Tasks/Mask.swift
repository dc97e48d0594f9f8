/// A single-channel float mask, mirroring the iOS `Mask` with a `float32` data type.
///
/// Layout: `[height, width]` row-major, so pixel (x, y) is `float32Data[y * width + x]`; x goes
/// right and y goes down, as in the image the mask belongs to. Values are probabilities in
/// [0, 1] (for pose segmentation: that the pixel belongs to the person).
///
/// JSON keys: `width`, `height`, `float32Data`. Decoding rejects data whose length is not
/// `width * height`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct Mask: Codable, Sendable, Equatable {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// `width * height` values, row-major.
    public let float32Data: [Float]

    /// Wraps `float32Data`, which must hold exactly `width * height` values (a programmer
    /// error otherwise).
    public init(width: Int, height: Int, float32Data: [Float]) {
        precondition(
            Self.expectedCount(width: width, height: height) == float32Data.count,
            "Mask data holds \(float32Data.count) values, not \(width) × \(height)")
        self.width = width
        self.height = height
        self.float32Data = float32Data
    }

    private enum CodingKeys: String, CodingKey {
        case width, height, float32Data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let width = try container.decode(Int.self, forKey: .width)
        let height = try container.decode(Int.self, forKey: .height)
        let data = try container.decode([Float].self, forKey: .float32Data)
        guard Self.expectedCount(width: width, height: height) == data.count else {
            throw DecodingError.dataCorruptedError(
                forKey: .float32Data, in: container,
                debugDescription: "Mask data holds \(data.count) values, not \(width) × \(height)")
        }
        self.width = width
        self.height = height
        self.float32Data = data
    }

    /// `width * height`, or nil when a side is negative or the product overflows.
    private static func expectedCount(width: Int, height: Int) -> Int? {
        guard width >= 0, height >= 0 else { return nil }
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? nil : count
    }
}

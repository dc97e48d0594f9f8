/// Errors raised while building shapes or storage from untrusted sizes.
public enum TensorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A dimension was negative.
    case negativeDimension(dimensions: [Int])
    /// The element count (or its byte size) does not fit the limit.
    case tooManyElements(dimensions: [Int], limit: Int)
    /// A rank above `TensorShape.maxRank`.
    case rankTooHigh(rank: Int)

    public var description: String {
        switch self {
        case .negativeDimension(let dims):
            return "shape \(dims) has a negative dimension"
        case .tooManyElements(let dims, let limit):
            return "shape \(dims) has more than \(limit) elements"
        case .rankTooHigh(let rank):
            return "rank \(rank) exceeds the maximum of \(TensorShape.maxRank)"
        }
    }
}

/// A validated tensor shape: every dimension is in `0...maxElements` and the
/// element count is at most `TensorShape.maxElements`, so `elementCount * 8`
/// and products of a few dimensions cannot overflow. Layout convention for images is NHWC (`[batch, height, width, channels]`).
public struct TensorShape: Hashable, Sendable, CustomStringConvertible {
    /// The most dimensions a shape may have.
    public static let maxRank = 8
    /// The most elements one tensor may hold (2^31, i.e. 8 GiB of float32).
    public static let maxElements = 1 << 31

    /// The dimensions, outermost first.
    public let dimensions: [Int]
    /// Product of the dimensions (1 for a scalar).
    public let elementCount: Int

    /// Validates `dimensions`; throws `TensorError` for negative dimensions,
    /// a rank above `maxRank` or more than `maxElements` elements.
    public init(_ dimensions: [Int]) throws {
        guard dimensions.count <= Self.maxRank else {
            throw TensorError.rankTooHigh(rank: dimensions.count)
        }
        var count = 1
        for d in dimensions {
            guard d >= 0 else { throw TensorError.negativeDimension(dimensions: dimensions) }
            // Each dimension is capped too, so a zero elsewhere cannot hide a
            // huge extent that index arithmetic would later multiply.
            guard d <= Self.maxElements else {
                throw TensorError.tooManyElements(dimensions: dimensions, limit: Self.maxElements)
            }
            let (product, overflow) = count.multipliedReportingOverflow(by: d)
            guard !overflow, product <= Self.maxElements else {
                throw TensorError.tooManyElements(dimensions: dimensions, limit: Self.maxElements)
            }
            count = product
        }
        self.dimensions = dimensions
        self.elementCount = count
    }

    /// A shape known to be valid (a literal in code or tests). Traps otherwise:
    /// use `init(_:)` for any size that comes from a file or a caller.
    public init(validated dimensions: [Int]) {
        do {
            try self.init(dimensions)
        } catch {
            preconditionFailure("invalid shape literal \(dimensions): \(error)")
        }
    }

    public var rank: Int { dimensions.count }

    public subscript(axis: Int) -> Int { dimensions[axis] }

    public var description: String {
        "[" + dimensions.map(String.init).joined(separator: ", ") + "]"
    }
}

/// The smallest and largest x and y of a set of points, started as MediaPipe's landmark
/// calculators start them: the minima at the largest finite `Float`, the maxima at the smallest
/// positive normal `Float` (not −∞), so that a set of points all below zero reports that value as
/// its maximum, as MediaPipe's does.
///
/// Thread safety: a `Sendable` value.
package struct PointBounds: Sendable, Equatable {
    package private(set) var minX = Float.greatestFiniteMagnitude
    package private(set) var maxX = Float.leastNormalMagnitude
    package private(set) var minY = Float.greatestFiniteMagnitude
    package private(set) var maxY = Float.leastNormalMagnitude

    /// No points yet.
    package init() {}

    /// The bounds of `points`, taken in order.
    package init(_ points: some Sequence<RelativePoint>) {
        for point in points { add(x: point.x, y: point.y) }
    }

    /// Widens the bounds to hold (x, y).
    package mutating func add(x: Float, y: Float) {
        minX = min(minX, x)
        maxX = max(maxX, x)
        minY = min(minY, y)
        maxY = max(maxY, y)
    }

    /// `(maxX + minX) / 2`.
    package var centerX: Float { (maxX + minX) / 2 }
    /// `(maxY + minY) / 2`.
    package var centerY: Float { (maxY + minY) / 2 }
}

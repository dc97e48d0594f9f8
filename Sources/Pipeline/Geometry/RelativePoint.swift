/// A 2-D point in normalized image coordinates: `x` as a fraction of the image width, `y` as a
/// fraction of the image height, origin at the top-left corner, y pointing down.
/// Values outside `[0, 1]` lie outside the image.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct RelativePoint: Sendable, Hashable, Codable {
    package var x: Float
    package var y: Float

    package init(x: Float, y: Float) {
        self.x = x
        self.y = y
    }
}

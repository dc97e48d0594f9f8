import TestSupport
@testable import Pipeline

extension RotatedPixelRect {
    /// A rect drawn from `random`: centre, width and height (pixels) and rotation (radians), each
    /// uniform in its range, in that order.
    static func random(
        centerX: ClosedRange<Double>, centerY: ClosedRange<Double>, sides: ClosedRange<Double>,
        rotation: ClosedRange<Double>, using random: inout SeededGenerator
    ) -> RotatedPixelRect {
        RotatedPixelRect(centerX: Double.random(in: centerX, using: &random),
                         centerY: Double.random(in: centerY, using: &random),
                         width: Double.random(in: sides, using: &random),
                         height: Double.random(in: sides, using: &random),
                         rotation: Double.random(in: rotation, using: &random))
    }
}

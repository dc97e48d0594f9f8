@testable import Pipeline
import Testing

/// ``ProjectiveMap`` against OpenCV: the coefficients `cv::warpPerspective` samples with are the
/// inverse (`cv::invert`) of `cv::getPerspectiveTransform` from the ROI's `cv::boxPoints` corners
/// to the tensor's corners. The expected values are what OpenCV's Python bindings
/// (`opencv-contrib-python` 4.11.0.86, installed beside mediapipe 0.10.21) print for the same
/// float32 corners, as shortest round-trip decimals of the doubles; `SampleClipTests` shows that
/// the OpenCV 4.10 inside mediapipe computes the same crops.
@Suite struct ProjectiveMapTests {
    /// `ProjectiveMap(...).m` for corners given in `cv::boxPoints` order: bottom-left, top-left,
    /// top-right, bottom-right.
    static func coefficients(_ corners: [(x: Float, y: Float)], tensorSide: Int) throws -> [Double] {
        let map = try #require(ProjectiveMap(
            topLeft: corners[1], topRight: corners[2], bottomRight: corners[3], bottomLeft: corners[0],
            tensorWidth: tensorSide, tensorHeight: tensorSide))
        let m = map.m
        return [m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7, m.8]
    }

    /// A rotated hand ROI (frame 13 of `hand_right_1px`, 150.6 px square, 29°): OpenCV's LU
    /// solve leaves its rounding in every coefficient, down to a w row of −8e−19 and
    /// 0.9999999999999998, which the exact map (w ≡ 1) does not have.
    @Test func rotatedROIGivesOpenCVsCoefficientsBitForBit() throws {
        let corners: [(x: Float, y: Float)] = [
            (52.911102294921875, 207.06930541992188), (126.13803100585938, 75.43380737304688),
            (257.7735290527344, 148.66073608398438), (184.54660034179688, 280.2962341308594),
        ]
        let expected = [
            0.5876584734235489, -0.32690593174525656, 126.13803100585935, 0.32690593174525656, 0.5876584734235489,
            75.43380737304686, -8.05407348502719e-19, 0.0, 0.9999999999999998,
        ]
        let actual = try Self.coefficients(corners, tensorSide: 224)
        #expect(actual.map(\.bitPattern) == expected.map(\.bitPattern), "\(actual)")
    }

    /// The letterboxed whole 640 × 360 image on the 192 × 192 palm detector input.
    @Test func letterboxedImageGivesOpenCVsCoefficientsBitForBit() throws {
        let corners: [(x: Float, y: Float)] = [(0, 500), (0, -140), (640, -140), (640, 500)]
        let expected = [3.333333333333333, -0.0, 0.0, 0.0, 3.333333333333333, -140.0, -0.0, 0.0, 0.9999999999999999]
        let actual = try Self.coefficients(corners, tensorSide: 192)
        #expect(zip(actual, expected).allSatisfy { $0 == $1 }, "\(actual)")
    }

    /// Corners on one line leave the system singular: no map.
    @Test func collinearCornersGiveNoMap() {
        let line: [(x: Float, y: Float)] = [(0, 0), (1, 1), (2, 2), (3, 3)]
        #expect(ProjectiveMap(topLeft: line[1], topRight: line[2], bottomRight: line[3], bottomLeft: line[0],
                              tensorWidth: 224, tensorHeight: 224) == nil)
    }
}

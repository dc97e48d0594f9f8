/// A projective map from tensor pixel (x, y) to image pixel
/// `((m0 x + m1 y + m2) / w, (m3 x + m4 y + m5) / w)`, `w = m6 x + m7 y + m8`, in double.
///
/// The coefficients are the ones `cv::warpPerspective` samples with in MediaPipe's CPU
/// ImageToTensor (OpenCV 4.10), to the last bit: `cv::getPerspectiveTransform` of the ROI's
/// corners to the tensor's corners, then its inverse. The sample positions round to 1/32 pixel
/// (``FixedPointBilinearSampler``), so coefficients that differ from OpenCV's in their last bits
/// move a sample now and then to the next 1/32 and change the crop; an exact closed form of the
/// same map does exactly that.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
struct ProjectiveMap: Sendable {
    let m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)

    /// The map sending tensor corners (0, 0), (W_t, 0), (W_t, H_t), (0, H_t) to `topLeft`,
    /// `topRight`, `bottomRight`, `bottomLeft`, in OpenCV's arithmetic:
    ///
    /// 1. `getPerspectiveTransform` with the corners in `cv::boxPoints` order (bottom-left,
    ///    top-left, top-right, bottom-right) against (0, H_t), (0, 0), (W_t, 0), (W_t, H_t): the
    ///    8 × 8 system `A·h = b` of the image-to-tensor map, whose products of a corner and a
    ///    tensor coordinate are float32 products, solved in double by LU decomposition with
    ///    partial pivoting (``solveByLU(_:_:)``); `h₈ = 1`.
    /// 2. The inverse of that 3 × 3 matrix by cofactors over its determinant, in double
    ///    (``inverse(_:)``), as `cv::invert` does for 3 × 3 inside `warpPerspective`.
    ///
    /// `nil` when the corners are degenerate (a pivot below `100 · DBL_EPSILON`, a zero
    /// determinant) or give non-finite coefficients.
    init?(topLeft: (x: Float, y: Float), topRight: (x: Float, y: Float), bottomRight: (x: Float, y: Float),
          bottomLeft: (x: Float, y: Float), tensorWidth: Int, tensorHeight: Int) {
        let tensorWidth = Float(tensorWidth), tensorHeight = Float(tensorHeight)
        let pairs: [(image: (x: Float, y: Float), tensor: (x: Float, y: Float))] = [
            (bottomLeft, (0, tensorHeight)), (topLeft, (0, 0)),
            (topRight, (tensorWidth, 0)), (bottomRight, (tensorWidth, tensorHeight)),
        ]
        var a = [[Double]](repeating: [Double](repeating: 0, count: 8), count: 8)
        var b = [Double](repeating: 0, count: 8)
        for (i, pair) in pairs.enumerated() {
            let (source, target) = pair
            a[i][0] = Double(source.x)
            a[i][1] = Double(source.y)
            a[i][2] = 1
            a[i][6] = Double(-source.x * target.x)
            a[i][7] = Double(-source.y * target.x)
            a[i + 4][3] = Double(source.x)
            a[i + 4][4] = Double(source.y)
            a[i + 4][5] = 1
            a[i + 4][6] = Double(-source.x * target.y)
            a[i + 4][7] = Double(-source.y * target.y)
            b[i] = Double(target.x)
            b[i + 4] = Double(target.y)
        }
        guard let h = Self.solveByLU(a, b),
              let inverse = Self.inverse([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1]) else { return nil }
        m = (inverse[0], inverse[1], inverse[2], inverse[3], inverse[4], inverse[5], inverse[6], inverse[7], inverse[8])
        guard inverse.allSatisfy(\.isFinite) else { return nil }
    }

    /// OpenCV's `hal::LU64f` on one right-hand side: Gaussian elimination with partial pivoting
    /// (the first row with the largest magnitude in the column; rows swapped from the pivot
    /// column on), each row below updated as `row += (−a_ji / a_ii)·pivot row`, then back
    /// substitution `x_i = (b_i − Σ_{k>i} a_ik·x_k) / a_ii` with the sum subtracted term by term.
    /// `nil` when a pivot's magnitude is below `100 · DBL_EPSILON`.
    static func solveByLU(_ matrix: [[Double]], _ rightHandSide: [Double]) -> [Double]? {
        var a = matrix, b = rightHandSide
        let n = b.count
        for i in 0..<n {
            var pivot = i
            for j in (i + 1)..<n where abs(a[j][i]) > abs(a[pivot][i]) {
                pivot = j
            }
            guard abs(a[pivot][i]) >= 100 * Double.ulpOfOne else { return nil }
            if pivot != i {
                for j in i..<n {
                    (a[i][j], a[pivot][j]) = (a[pivot][j], a[i][j])
                }
                b.swapAt(i, pivot)
            }
            let d = -1 / a[i][i]
            for j in (i + 1)..<n {
                let alpha = a[j][i] * d
                for k in (i + 1)..<n {
                    a[j][k] += alpha * a[i][k]
                }
                b[j] += alpha * b[i]
            }
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = b[i]
            for k in (i + 1)..<n {
                s -= a[i][k] * b[k]
            }
            b[i] = s / a[i][i]
        }
        return b
    }

    /// OpenCV's `cv::invert` of a 3 × 3 double matrix (row-major): the determinant expanded
    /// along the first row, `d = 1/det`, and each entry of the adjugate times d. `nil` for a
    /// zero determinant.
    static func inverse(_ s: [Double]) -> [Double]? {
        func at(_ row: Int, _ column: Int) -> Double { s[row * 3 + column] }
        let determinant = at(0, 0) * (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1))
            - at(0, 1) * (at(1, 0) * at(2, 2) - at(1, 2) * at(2, 0))
            + at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0))
        guard determinant != 0 else { return nil }
        let d = 1 / determinant
        return [
            (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1)) * d,
            (at(0, 2) * at(2, 1) - at(0, 1) * at(2, 2)) * d,
            (at(0, 1) * at(1, 2) - at(0, 2) * at(1, 1)) * d,
            (at(1, 2) * at(2, 0) - at(1, 0) * at(2, 2)) * d,
            (at(0, 0) * at(2, 2) - at(0, 2) * at(2, 0)) * d,
            (at(0, 2) * at(1, 0) - at(0, 0) * at(1, 2)) * d,
            (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0)) * d,
            (at(0, 1) * at(2, 0) - at(0, 0) * at(2, 1)) * d,
            (at(0, 0) * at(1, 1) - at(0, 1) * at(1, 0)) * d,
        ]
    }
}

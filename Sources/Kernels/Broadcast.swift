import Tensor

/// How the two operands of a binary element-wise op (ADD, PRELU) line up under
/// TFLite's broadcasting rules, which are NumPy's: the shapes are aligned at
/// their last dimension, a missing leading dimension counts as 1, and along
/// each dimension the two sizes must be equal or one of them 1 (that operand
/// is then repeated along it). For example `[1, H, W, C]` with `[1, 1, 1, C]`
/// or with `[C]` gives `[1, H, W, C]`; `[2, 1]` with `[3]` gives `[2, 3]`.
///
/// Operands of identical shape pair element `i` with element `i` at any rank.
/// Otherwise the output rank may be at most `maxRank`; the sizes and strides
/// are stored left-padded to exactly `maxRank` dimensions so the reference
/// loops are fixed nested loops that allocate nothing.
struct BinaryBroadcast: Sendable, Hashable {
    /// The most dimensions a broadcast (as opposed to same-shape) pair may have.
    static let maxRank = 6

    /// Shape of the result.
    let outputShape: TensorShape
    /// True when both operands have the output's shape.
    let isElementwise: Bool
    /// Output sizes, left-padded with 1 to `maxRank` entries (unused when `isElementwise`).
    let sizes: [Int]
    /// Element stride of the left operand along each padded output dimension; 0 where it repeats.
    let lhsStrides: [Int]
    /// Element stride of the right operand along each padded output dimension; 0 where it repeats.
    let rhsStrides: [Int]

    /// Broadcasts `lhs` with `rhs`, or throws a `KernelError` naming `op` if
    /// the shapes are incompatible, if a broadcast needs more than
    /// `maxBroadcastRank` (≤ `maxRank`) dimensions, or if the result is too large.
    init(op: String, lhs: TensorShape, rhs: TensorShape, maxBroadcastRank: Int) throws {
        precondition(maxBroadcastRank <= Self.maxRank, "broadcast rank limit above \(Self.maxRank)")
        if lhs == rhs {
            outputShape = lhs
            isElementwise = true
            sizes = []
            lhsStrides = []
            rhsStrides = []
            return
        }
        let rank = max(lhs.rank, rhs.rank)
        guard rank <= maxBroadcastRank else {
            throw KernelError(
                op: op,
                "broadcasting \(lhs) with \(rhs) needs rank \(rank); at most \(maxBroadcastRank) is supported")
        }
        // Sizes aligned at the last dimension, missing leading ones as 1.
        func aligned(_ shape: TensorShape) -> [Int] {
            [Int](repeating: 1, count: Self.maxRank - shape.rank) + shape.dimensions
        }
        let left = aligned(lhs), right = aligned(rhs)
        var sizes = [Int](repeating: 1, count: Self.maxRank)
        for axis in 0..<Self.maxRank {
            let a = left[axis], b = right[axis]
            if a == b || b == 1 {
                sizes[axis] = a
            } else if a == 1 {
                sizes[axis] = b
            } else {
                throw KernelError(
                    op: op,
                    "shapes \(lhs) and \(rhs) do not broadcast: sizes \(a) and \(b) at dimension "
                        + "\(axis - (Self.maxRank - rank)) are different and neither is 1")
            }
        }
        do {
            outputShape = try TensorShape(Array(sizes.suffix(rank)))
        } catch {
            throw KernelError(op: op, "broadcast shape of \(lhs) and \(rhs) is invalid: \(error)")
        }
        // Row-major strides of each operand; a repeated (size-1) dimension
        // contributes stride 0 so the same element is read again. A shape with
        // a zero dimension passes TensorShape whatever its other sizes, so the
        // running product is checked.
        func strides(_ operandSizes: [Int], of shape: TensorShape) throws -> [Int] {
            var result = [Int](repeating: 0, count: Self.maxRank)
            var stride = 1
            for axis in (0..<Self.maxRank).reversed() {
                result[axis] = operandSizes[axis] == 1 ? 0 : stride
                let (next, overflow) = stride.multipliedReportingOverflow(by: operandSizes[axis])
                guard !overflow else {
                    throw KernelError(op: op, "sizes of \(shape) overflow")
                }
                stride = next
            }
            return result
        }
        isElementwise = false
        self.sizes = sizes
        lhsStrides = try strides(left, of: lhs)
        rhsStrides = try strides(right, of: rhs)
    }

    /// Calls `body(output, lhs, rhs)` for every output element in row-major
    /// order, with the element offsets of the two operand values it combines.
    @inline(__always)
    func forEachElement(_ body: (_ output: Int, _ lhs: Int, _ rhs: Int) -> Void) {
        // Nothing to write; also keeps a zero-sized dimension from leaving
        // the loops over the other (unbounded) sizes spinning.
        guard outputShape.elementCount > 0 else { return }
        if isElementwise {
            for i in 0..<outputShape.elementCount { body(i, i, i) }
            return
        }
        let n = sizes, l = lhsStrides, r = rhsStrides
        var output = 0
        for i0 in 0..<n[0] {
            for i1 in 0..<n[1] {
                for i2 in 0..<n[2] {
                    for i3 in 0..<n[3] {
                        for i4 in 0..<n[4] {
                            let lhsBase = i0 * l[0] + i1 * l[1] + i2 * l[2] + i3 * l[3] + i4 * l[4]
                            let rhsBase = i0 * r[0] + i1 * r[1] + i2 * r[2] + i3 * r[3] + i4 * r[4]
                            for i5 in 0..<n[5] {
                                body(output, lhsBase + i5 * l[5], rhsBase + i5 * r[5])
                                output += 1
                            }
                        }
                    }
                }
            }
        }
    }
}

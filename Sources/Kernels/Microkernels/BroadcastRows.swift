import KernelTemplates

/// A binary broadcast (see `BinaryBroadcast`) walked as rows for the fast
/// element-wise kernels: the output is `rowCount` rows of `rowLength`
/// elements (its last dimension, or everything for same-shape operands),
/// and along a row each operand either advances by one element or repeats
/// one element (inner stride 1 or 0).
///
/// Every output element combines exactly the operand elements the reference
/// loops pair it with, so a kernel that applies the reference's arithmetic
/// per element gives bit-identical results.
struct BroadcastRows: Sendable {
    /// Elements in the output.
    let elementCount: Int
    /// Elements per row (≥ 1 when `elementCount > 0`).
    let rowLength: Int
    /// Sizes of the dimensions before the last, left-padded with 1
    /// (empty for same-shape operands).
    let outerSizes: [Int]
    /// Element strides of each operand along `outerSizes` (0 where it repeats).
    let lhsOuterStrides: [Int]
    let rhsOuterStrides: [Int]
    /// Step of each operand along a row: 1 or 0.
    let lhsInnerStride: Int
    let rhsInnerStride: Int
    /// When each operand's row origin is `row · step` (an operand read whole in row-major
    /// order has step `rowLength`, one repeated for every row step 0), the two steps, so that
    /// rows need no divisions; nil otherwise.
    let affineRowSteps: (lhs: Int, rhs: Int)?

    init(_ broadcast: BinaryBroadcast) {
        elementCount = broadcast.outputShape.elementCount
        if broadcast.isElementwise {
            rowLength = max(1, elementCount)
            outerSizes = []
            lhsOuterStrides = []
            rhsOuterStrides = []
            lhsInnerStride = 1
            rhsInnerStride = 1
            affineRowSteps = nil
        } else {
            let last = BinaryBroadcast.maxRank - 1
            rowLength = broadcast.sizes[last]
            outerSizes = Array(broadcast.sizes[..<last])
            lhsOuterStrides = Array(broadcast.lhsStrides[..<last])
            rhsOuterStrides = Array(broadcast.rhsStrides[..<last])
            lhsInnerStride = broadcast.lhsStrides[last]
            rhsInnerStride = broadcast.rhsStrides[last]
            if let lhsStep = Self.affineRowStep(sizes: outerSizes, strides: lhsOuterStrides),
                let rhsStep = Self.affineRowStep(sizes: outerSizes, strides: rhsOuterStrides) {
                affineRowSteps = (lhsStep, rhsStep)
            } else {
                affineRowSteps = nil
            }
        }
    }

    /// The step `s` with `origin(row) = row · s` for an operand with these outer `strides`,
    /// if there is one: its stride along the innermost outer dimension of size above 1 must
    /// scale with the rows each dimension's index counts (`rowLength` for an operand read
    /// whole in row-major order, 0 for one repeated for every row).
    private static func affineRowStep(sizes: [Int], strides: [Int]) -> Int? {
        guard let innermost = sizes.lastIndex(where: { $0 > 1 }) else { return 0 }
        let step = strides[innermost]
        var rowsPerIndex = 1
        for axis in sizes.indices.reversed() {
            let (expected, overflow) = step.multipliedReportingOverflow(by: rowsPerIndex)
            if sizes[axis] > 1 && (overflow || strides[axis] != expected) { return nil }
            rowsPerIndex *= sizes[axis]
        }
        return step
    }

    /// Whether the lhs is read whole and one rhs row repeats for every row, each row a whole
    /// number of 8-lane vectors (`combineRowsWithRepeatedRhs`): a PRELU's or ADD's per-channel
    /// operand over `[1, H, W, C]` with C a multiple of 8.
    var repeatsRhsRow: Bool {
        guard let steps = affineRowSteps else { return false }
        return steps.lhs == rowLength && steps.rhs == 0 && lhsInnerStride == 1 && rhsInnerStride == 1
            && rowLength % 8 == 0
    }

    /// Offsets of the two operand elements that output row `row` starts from.
    @inline(__always)
    func rowOrigins(_ row: Int) -> (lhs: Int, rhs: Int) {
        if let steps = affineRowSteps { return (row &* steps.lhs, row &* steps.rhs) }
        var rest = row, lhs = 0, rhs = 0
        var axis = outerSizes.count - 1
        while axis >= 0 && rest > 0 {
            let size = outerSizes[axis]
            let index = rest % size
            rest /= size
            lhs += index * lhsOuterStrides[axis]
            rhs += index * rhsOuterStrides[axis]
            axis -= 1
        }
        return (lhs, rhs)
    }

    /// Computes `output[i] = operation.scalar(lhs[·], rhs[·])` for the output
    /// elements `i` in `range`. A kernel splits `0..<elementCount` over
    /// threads in ranges of at least `memoryBoundTaskGrain` elements.
    @inline(__always)
    func combine<Operation: ElementwiseOperation>(
        _ range: Range<Int>,
        lhs: UnsafePointer<Float>, rhs: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
        _ operation: Operation
    ) {
        var start = range.lowerBound
        // Only the first row may start inside a row.
        var row = start / rowLength, column = start % rowLength
        while start < range.upperBound {
            if column == 0, repeatsRhsRow {
                let rows = (range.upperBound - start) / rowLength
                if rows > 0 {
                    combineRowsWithRepeatedRhs(
                        lhs: lhs + start, rhs: rhs, output: output + start, rows: rows, rowLength: rowLength,
                        operation)
                    start += rows * rowLength
                    row += rows
                    continue
                }
            }
            let count = min(rowLength - column, range.upperBound - start)
            let origins = rowOrigins(row)
            combineRow(
                lhs: lhs + origins.lhs + column * lhsInnerStride, lhsStride: lhsInnerStride,
                rhs: rhs + origins.rhs + column * rhsInnerStride, rhsStride: rhsInnerStride,
                output: output + start, count: count, operation)
            start += count
            row += 1
            column = 0
        }
    }
}

/// Rows `0..<rows` of `rowLength` elements (a multiple of 8) of an lhs read whole and one rhs
/// row repeated for every row: `output[r·L + j] = operation.vector(lhs[r·L + j], rhs[j])`, eight
/// lanes at a time, without the per-row set-up of `combineRow` (a PRELU of 8 channels is a row
/// every 8 elements).
@inline(__always)
private func combineRowsWithRepeatedRhs<Operation: ElementwiseOperation>(
    lhs: UnsafePointer<Float>, rhs: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, rows: Int,
    rowLength: Int, _ operation: Operation
) {
    var offset = 0
    for _ in 0..<rows {
        var j = 0
        while j < rowLength {
            storeVector8(operation.vector(loadVector8(lhs + offset + j), loadVector8(rhs + j)), output + offset + j)
            j += 8
        }
        offset += rowLength
    }
}

/// `output[i] = operation.scalar(lhs[i·lhsStride], rhs[i·rhsStride])` for
/// `i` in `0..<count`, eight lanes at a time with a scalar tail. Strides are 0 or 1.
@inline(__always)
func combineRow<Operation: ElementwiseOperation>(
    lhs: UnsafePointer<Float>, lhsStride: Int, rhs: UnsafePointer<Float>, rhsStride: Int,
    output: UnsafeMutablePointer<Float>, count: Int, _ operation: Operation
) {
    var i = 0
    switch (lhsStride, rhsStride) {
    case (1, 1):
        while i + 8 <= count {
            storeVector8(operation.vector(loadVector8(lhs + i), loadVector8(rhs + i)), output + i)
            i += 8
        }
        while i < count {
            output[i] = operation.scalar(lhs[i], rhs[i])
            i += 1
        }
    case (1, _):
        let right = SIMD8<Float>(repeating: rhs[0])
        while i + 8 <= count {
            storeVector8(operation.vector(loadVector8(lhs + i), right), output + i)
            i += 8
        }
        while i < count {
            output[i] = operation.scalar(lhs[i], rhs[0])
            i += 1
        }
    case (_, 1):
        let left = SIMD8<Float>(repeating: lhs[0])
        while i + 8 <= count {
            storeVector8(operation.vector(left, loadVector8(rhs + i)), output + i)
            i += 8
        }
        while i < count {
            output[i] = operation.scalar(lhs[0], rhs[i])
            i += 1
        }
    default:
        output.update(repeating: operation.scalar(lhs[0], rhs[0]), count: count)
    }
}

/// An element-wise binary operation for `BroadcastRows.combine`, a concrete type per kernel so
/// that the loops are specialised with its arithmetic inlined (closures passed the same way
/// were left as calls in one of ADD's two loops, three calls per eight elements). `vector` must
/// compute exactly what `scalar` computes, lane by lane.
protocol ElementwiseOperation {
    func vector(_ left: SIMD8<Float>, _ right: SIMD8<Float>) -> SIMD8<Float>
    func scalar(_ left: Float, _ right: Float) -> Float
}

/// The clamp of ADD's and MUL's results to an activation's finite bounds, on eight lanes and on
/// one value (`clamp` of `KernelTemplates`: NaN passes through).
struct ElementwiseClamp {
    let lower: Float, upper: Float
    let lowerLanes: SIMD8<Float>, upperLanes: SIMD8<Float>

    init(lower: Float, upper: Float) {
        self.lower = lower
        self.upper = upper
        lowerLanes = SIMD8(repeating: lower)
        upperLanes = SIMD8(repeating: upper)
    }

    @inline(__always)
    func callAsFunction(_ x: SIMD8<Float>) -> SIMD8<Float> { clamp(x, lower: lowerLanes, upper: upperLanes) }

    @inline(__always)
    func callAsFunction(_ x: Float) -> Float { clamp(x, lower: lower, upper: upper) }
}

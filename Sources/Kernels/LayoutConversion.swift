import KernelTemplates
import Tensor

/// Moves a 4-D activation between the two layouts the kernels use:
/// channel-last `[N, H, W, C]` (TFLite's, everywhere by default) and
/// channel-major `[N][C][H·W]` (each channel's H×W plane contiguous, row
/// by row), which the kernels of a channel-major region read and write
/// (`SparsePointwiseConv2DCHW`, `DepthwiseConv2DCHW`).
///
/// Input and output have the same shape and element count; only the order
/// of the elements differs. Per image this is a transpose of a `[P, C]`
/// matrix (P = H·W) into `[C, P]`, or back.
public struct LayoutConversion: PreparedKernel {
    /// Which way the elements move.
    public enum Direction: Sendable {
        /// `[N, H, W, C]` → `[N][C][H·W]`.
        case toChannelMajor
        /// `[N][C][H·W]` → `[N, H, W, C]`.
        case toChannelLast
    }

    public let direction: Direction
    /// `[[N, H, W, C]]`: the tensor's shape, whichever its layout.
    public let outputShapes: [TensorShape]
    public var opName: String { direction == .toChannelMajor ? "TO_CHANNEL_MAJOR" : "TO_CHANNEL_LAST" }
    /// Images.
    let batch: Int
    /// H·W.
    let pixels: Int
    /// C.
    let channels: Int

    /// A conversion of a tensor of `shape`; nil unless `shape` is 4-D.
    public init?(shape: TensorShape, direction: Direction) {
        guard shape.rank == 4 else { return nil }
        self.direction = direction
        self.outputShapes = [shape]
        self.batch = shape[0]
        // Cannot overflow: H·W is at most the element count.
        self.pixels = shape[1] * shape[2]
        self.channels = shape[3]
    }

    /// `[rows, columns]` of the matrix each image is read as: `[P, C]` to
    /// channel-major, `[C, P]` back.
    private var sourceMatrix: (rows: Int, columns: Int) {
        direction == .toChannelMajor ? (pixels, channels) : (channels, pixels)
    }

    /// Element by element.
    public func runReference(_ io: KernelIO) {
        let (rows, columns) = sourceMatrix
        let imageSize = rows * columns
        for n in 0..<batch {
            let source = io.inputs[0] + n * imageSize, target = io.outputs[0] + n * imageSize
            for r in 0..<rows {
                for c in 0..<columns {
                    target[c * rows + r] = source[r * columns + c]
                }
            }
        }
    }

    /// In square blocks (`TransposeBlocks.side` on a side), so that both the
    /// rows read and the rows written stay in L1; the blocks of each image are
    /// split over threads by block rows of the target.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        let (rows, columns) = sourceMatrix
        guard rows > 0, columns > 0 else { return }
        let work = TransposeBlocks(
            source: io.inputs[0], target: io.outputs[0], rows: rows, columns: columns,
            blockRowsPerImage: (columns + TransposeBlocks.side - 1) / TransposeBlocks.side)
        runner.forEach(
            batch * work.blockRowsPerImage,
            minimumPerChunk: max(1, memoryBoundTaskGrain / (rows * TransposeBlocks.side)), work)
    }
}

/// The transposes of `LayoutConversion.run`: item `i` writes target rows
/// `side·(i mod blockRowsPerImage) ..< +side` (source columns) of image
/// `i / blockRowsPerImage`, whole.
private struct TransposeBlocks: ParallelWork {
    /// Block side in elements: a 32×32 block of floats is 4 KiB.
    static let side = 32
    let source: UnsafePointer<Float>
    let target: UnsafeMutablePointer<Float>
    /// Rows and columns of each image's source matrix.
    let rows: Int
    let columns: Int
    let blockRowsPerImage: Int

    func run(_ items: Range<Int>, thread: Int) {
        let imageSize = rows * columns, side = Self.side
        for item in items {
            let n = item / blockRowsPerImage
            let firstColumn = (item % blockRowsPerImage) * side
            let lastColumn = min(firstColumn + side, columns)
            let image = source + n * imageSize, out = target + n * imageSize
            var firstRow = 0
            while firstRow < rows {
                let lastRow = min(firstRow + side, rows)
                transposeBlock(
                    image, out, rows: firstRow..<lastRow, columns: firstColumn..<lastColumn)
                firstRow = lastRow
            }
        }
    }

    /// Writes target rows `columns` (source columns), elements `rows`, of
    /// one image.
    @inline(__always)
    private func transposeBlock(
        _ image: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, rows rowRange: Range<Int>,
        columns columnRange: Range<Int>
    ) {
        transposeMatrix(
            image + rowRange.lowerBound * columns + columnRange.lowerBound,
            rows: rowRange.count, columns: columnRange.count, sourceStride: columns,
            into: out + columnRange.lowerBound * rows + rowRange.lowerBound, targetStride: rows)
    }
}

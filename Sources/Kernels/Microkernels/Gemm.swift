import KernelTemplates
import Tensor

/// `C[P, N] = clamp(A[P, K] · Wᵀ + bias, lower, upper)` with packed weights:
/// the 1×1 convolution (`P = N·H·W` pixels of an NHWC tensor, `K = Cin`,
/// `N = Cout`) and FULLY_CONNECTED (`P` = batch rows).
///
/// - Parameters:
///   - input: A, `[P, K]` row-major (`K = weights.inputChannels`).
///   - rows: P, at least 0.
///   - weights: W and bias packed by `PackedGemmWeights`.
///   - output: C, `[P, N]` row-major (`N = weights.outputChannels`); must
///     not overlap `input`.
///   - workspace: at least `gemmF32WorkspaceSize(weights:threadCount:)`
///     floats for `runner.threadCount` (none for float32 panels): each
///     thread's float32 copy of the float16 panel it computes.
///   - clamp: output range, e.g. `FusedActivation.clampRange`.
///   - epilogue: element-wise operations applied to the output after the
///     clamp; `residual` is its ADD's other operand, `[P, N]` (nil when it
///     has no ADD).
///   - runner: the output is split into tiles of rows × column panels; the
///     sum over K is never split, so results are bit-identical for every
///     thread count.
public func gemmF32(
    input: UnsafePointer<Float>, rows: Int,
    weights: PackedGemmWeights,
    output: UnsafeMutablePointer<Float>,
    workspace: UnsafeMutableBufferPointer<Float>,
    clamp: (lower: Float, upper: Float),
    epilogue: ConvolutionEpilogue = .none, residual: UnsafePointer<Float>? = nil,
    runner: ParallelRunner
) {
    /// The tiles of this call, for `ParallelRunner.forEach`.
    struct Tiles: ParallelWork {
        let tiling: GemmTiling
        let input: UnsafePointer<Float>
        let weights: PackedGemmWeights
        let output: UnsafeMutablePointer<Float>
        let workspace: UnsafeMutablePointer<Float>?
        let clamp: (lower: Float, upper: Float)
        /// The call's epilogue, alive while the tiles run.
        let epilogue: UnsafePointer<EpilogueOperands>?

        func run(_ tiles: Range<Int>, thread: Int) {
            let layout = GemmRows.contiguous(depth: weights.inputChannels, rowStride: weights.inputChannels)
            var widened = WidenedPanel(weights: weights, workspace: workspace, thread: thread)
            for tile in tiles {
                let (rowRange, panelRange) = tiling.tile(tile)
                gemmF32Block(
                    a: input + rowRange.lowerBound * weights.inputChannels, layout: layout,
                    rows: rowRange.count, weights: weights, panels: panelRange,
                    c: output + rowRange.lowerBound * weights.outputChannels,
                    cStride: weights.outputChannels, lower: clamp.lower, upper: clamp.upper, epilogue: epilogue,
                    widened: &widened)
            }
        }
    }
    precondition(
        workspace.count >= weights.widenedPanelFloats * runner.threadCount,
        "the workspace is smaller than gemmF32WorkspaceSize(weights:threadCount:)")
    let tiling = GemmTiling(rows: rows, weights: weights, threadCount: runner.threadCount)
    withUnsafePointer(
        toOptional: epilogue.operands(output: output, elementCount: rows * weights.outputChannels, residual: residual)
    ) { epilogue in
        runner.forEach(
            tiling.tileCount,
            Tiles(tiling: tiling, input: input, weights: weights, output: output, workspace: workspace.baseAddress,
                  clamp: clamp, epilogue: epilogue))
    }
}

/// Floats of scratch `gemmF32` needs for `threadCount` threads: one
/// widened panel per thread for float16 panels (`widenedPanelFloats`),
/// none for float32 ones.
/// - Throws: `KernelError` when that exceeds `TensorShape.maxElements`.
public func gemmF32WorkspaceSize(weights: PackedGemmWeights, threadCount: Int) throws(KernelError) -> Int {
    let perThread = weights.widenedPanelFloats
    let (total, overflow) = perThread.multipliedReportingOverflow(by: max(1, threadCount))
    guard !overflow, total <= TensorShape.maxElements else {
        throw KernelError(
            op: "GEMM", "widened panels of \(threadCount) × \(perThread) floats exceed \(TensorShape.maxElements)")
    }
    return total
}

/// One thread's float32 copy of a float16 panel (`PackedGemmWeights.widenPanel`)
/// and which panel of the call's weights it holds, so that the blocks a
/// thread computes one after another on the same panel widen it once. Made
/// afresh for each call of `gemmF32` or `convolutionF32` (the weights do not
/// change within one).
struct WidenedPanel {
    /// `weights.widenedPanelFloats` floats of the thread's workspace.
    let floats: UnsafeMutablePointer<Float>
    /// The panel `floats` holds, or nil before the first.
    var panel: Int?

    /// Thread `thread`'s slice of `workspace` (`widenedPanelFloats` floats
    /// per thread); nil for float32 panels, which need none.
    init?(weights: PackedGemmWeights, workspace: UnsafeMutablePointer<Float>?, thread: Int) {
        guard weights.panelPrecision == .float16, let workspace else { return nil }
        floats = workspace + thread * weights.widenedPanelFloats
    }
}

/// Below this many multiply-adds per thread (about a microsecond of one
/// core's work), handing work to another thread costs more than it saves.
/// Helpers spin between operators, so handing over costs little: on a 16-core
/// Xeon, 2^14 ran the landmark models faster than 2^16 and 2^18 at 8 threads
/// and no slower at 2 and 4 (`Benchmarks/JOURNAL.md`, the "Threads" entries).
let minMultiplyAddsPerThread = 1 << 14

/// How many of `threadCount` threads are worth waking for `a·b·c`
/// multiply-adds: at least 1, at most one per `minMultiplyAddsPerThread`.
/// Only chooses who computes what, never what is computed.
func usefulThreadCount(_ threadCount: Int, multiplyAdds a: Int, _ b: Int, _ c: Int) -> Int {
    // The product of three tensor dimensions can exceed Int: saturate.
    let (ab, overflowB) = a.multipliedReportingOverflow(by: b)
    let (abc, overflowC) = ab.multipliedReportingOverflow(by: c)
    if overflowB || overflowC { return max(1, threadCount) }
    return max(1, min(threadCount, abc / minMultiplyAddsPerThread))
}

/// Computes rows `0..<rows` × the columns of `panels` of C on the calling
/// thread with the microkernels of `weights.instructionSet` (its
/// `MicrokernelTable.gemmPanels`: 6×16 and 5×16 tiles in the baseline family, 8×32
/// and 7×32 with AVX-512). A whole 8-wide last panel of float32 weights after a 16-wide one is
/// computed with it, 24 channels a row (`MicrokernelTable.gemmJoinedPanels`: 3×24 tiles in the
/// baseline family, 8×24 with AVX-512); any other 8-wide last panel uses the same `SIMD8` kernel
/// in both families (`gemmNarrowPanel`). In the dot-product layout, `panels` are output
/// channels. Float16 panels are computed one at a time: each is widened
/// into `widened` (unless it already holds it; by the widening tile as it
/// computes the block's first 4 rows, `gemmWideningTile`) and the same float32 kernels
/// read the copy, which stays in L1 or L2 while every row of the block
/// passes over it; in blocks that `readsFloat16PanelsInPlace` picks,
/// the whole panels are read in place instead (`gemmHalfPanels`). The
/// panel tiles apply `epilogue` in registers before they store (the output
/// is written once, finished); the dot-product kernel's outputs get it in
/// one pass over the block, while they are still in L2.
/// - Parameters:
///   - epilogue: the call's epilogue (one pointer for every block), or nil.
///   - widened: the thread's widened panel; nil for float32 panels.
func gemmF32Block(
    a: UnsafePointer<Float>, layout: GemmRows, rows: Int,
    weights: PackedGemmWeights, panels: Range<Int>,
    c: UnsafeMutablePointer<Float>, cStride: Int,
    lower: Float, upper: Float, epilogue: UnsafePointer<EpilogueOperands>?,
    widened: inout WidenedPanel?
) {
    assert(layout.depth == weights.inputChannels, "rows of A do not have K values")
    let k = weights.inputChannels, n = weights.outputChannels
    let bias = weights.bias
    let aStride = layout.rowStride
    guard !panels.isEmpty else { return }
    if weights.usesDotProducts {
        let w = UnsafePointer(weights.storage.baseAddress)
        for channel in panels {
            var row = 0
            while row < rows {
                gemmF32DotMicrokernel8x1(
                    rows: min(8, rows - row), a: a + row * aStride, layout: layout,
                    weights: w + channel * k, bias: bias[channel],
                    c: c + row * cStride + channel, cStride: cStride,
                    lower: lower, upper: upper)
                row += 8
            }
        }
        if let epilogue {
            weights.microkernels.convolutionEpilogue(
                epilogue.pointee, c, cStride, rows, panels.lowerBound, panels.count)
        }
        return
    }
    let lastPanel = weights.panelCount - 1
    // In memory, so that the tiles load the bounds as vectors (`ClampBounds`).
    var clampBounds = ClampBounds(lower: lower, upper: upper)
    withUnsafePointer(to: &clampBounds) { bounds in
        let kernels = weights.microkernels
        if weights.panelPrecision == .float16 {
            var widenedPanels = panels
            if readsFloat16PanelsInPlace(rows: rows, kernels) {
                // The whole panels among `panels`; a narrower last one is widened below.
                let wholeEnd = max(panels.lowerBound, min(panels.upperBound, weights.fullPanelCount))
                if wholeEnd > panels.lowerBound {
                    kernels.gemmHalfPanels(GemmPanelOperands(
                        a: a, rows: rows, runs: layout, packed: weights.float16Panel(0), bias: bias,
                        outputs: n, panels: panels.lowerBound..<wholeEnd, fullPanelCount: weights.fullPanelCount,
                        c: c, cStride: cStride, bounds: bounds, epilogue: epilogue, channel: 0))
                }
                widenedPanels = wholeEnd..<panels.upperBound
            }
            guard widened != nil else { preconditionFailure("float16 panels without a widened panel") }
            for p in widenedPanels {
                // Rows before `firstRow` are done: the tile that widened the panel computed them.
                var firstRow = 0
                if widened!.panel != p {
                    if p < weights.fullPanelCount, rows > GemmFourRows.count {
                        firstRow = GemmFourRows.count
                        kernels.gemmWideningTile(
                            GemmPanelOperands(
                                a: a, rows: firstRow, runs: layout, packed: weights.float16Panel(0), bias: bias,
                                outputs: n, panels: p..<(p + 1), fullPanelCount: weights.fullPanelCount, c: c,
                                cStride: cStride, bounds: bounds, epilogue: epilogue, channel: 0),
                            widened!.floats)
                    } else {
                        weights.widenPanel(p, into: widened!.floats)
                    }
                    widened!.panel = p
                }
                let panel = UnsafePointer(widened!.floats), column = weights.column(ofPanel: p)
                let rowsA = a + firstRow * layout.rowStride, rowsC = c + firstRow * cStride + column
                if weights.hasPanelOf8 && p == lastPanel {
                    gemmNarrowPanel(
                        a: rowsA, rows: rows - firstRow, runs: layout, panel: panel, bias: bias + column,
                        c: rowsC, cStride: cStride, columns: n - column, bounds: bounds,
                        epilogue: epilogue, channel: column)
                } else {
                    // The copy as the call's only panel: a full one, or the half-width one after them.
                    kernels.gemmPanels(GemmPanelOperands(
                        a: rowsA, rows: rows - firstRow, runs: layout, packed: panel, bias: bias + column,
                        outputs: n - column, panels: 0..<1, fullPanelCount: p < weights.fullPanelCount ? 1 : 0,
                        c: rowsC, cStride: cStride, bounds: bounds, epilogue: epilogue, channel: column))
                }
            }
        } else {
            let narrowLast = weights.hasPanelOf8 && panels.contains(lastPanel)
            // A whole last panel of 8 goes with the 16-wide panel before it, in the families
            // that join them (`gemmJoinedPanels`), unless the block is a single row.
            let joins = narrowLast && rows > 1 && kernels.gemmJoinedPanels != nil
                && n - weights.column(ofPanel: lastPanel) == 8 && lastPanel - 1 >= panels.lowerBound
                && weights.width(ofPanel: lastPanel - 1) == 16
            let apartPanels = panels.lowerBound..<(joins ? lastPanel - 1 : narrowLast ? lastPanel : panels.upperBound)
            kernels.gemmPanels(GemmPanelOperands(
                a: a, rows: rows, runs: layout, packed: weights.float32Panel(0), bias: bias, outputs: n,
                panels: apartPanels, fullPanelCount: weights.fullPanelCount, c: c, cStride: cStride,
                bounds: bounds, epilogue: epilogue, channel: 0))
            if joins, let joined = kernels.gemmJoinedPanels {
                let column = weights.column(ofPanel: lastPanel - 1)
                joined(GemmPanelOperands(
                    a: a, rows: rows, runs: layout, packed: weights.float32Panel(lastPanel - 1), bias: bias + column,
                    outputs: n - column, panels: 0..<2, fullPanelCount: 0, c: c + column, cStride: cStride,
                    bounds: bounds, epilogue: epilogue, channel: column))
            } else if narrowLast {
                let column = weights.column(ofPanel: lastPanel)
                gemmNarrowPanel(
                    a: a, rows: rows, runs: layout, panel: weights.float32Panel(lastPanel), bias: bias + column,
                    c: c + column, cStride: cStride, columns: n - column, bounds: bounds,
                    epilogue: epilogue, channel: column)
            }
        }
    }
}

/// Blocks of at most this many rows read float16 panels in place, widening each k's weights as
/// they load them (`MicrokernelTable.gemmHalfPanels`), rather than widening each panel into
/// scratch first: pose_landmark_full's 2×2, 4×4 and 8×8 maps (4, 16 and 64 rows). Longer blocks
/// spread a widening over enough rows to be cheap, and run faster on the 6-row float32 tiles.
let maxRowsReadingFloat16Panels = 64

/// Whether a block of `rows` rows reads its float16 panels in place (`gemmHalfPanels`) rather
/// than widening each panel first: blocks of at most `maxRowsReadingFloat16Panels` rows whose
/// float16 tiles compute fewer rows than widening would, where the widening tile
/// (`gemmWideningTile`) computes the first 4 rows and the float32 tiles the rest. A tie goes to
/// widening, whose float32 tiles run faster than the float16 ones. AVX2: blocks of at most 8
/// rows read in place; a 7 × 7 map's 49 rows (52 rows computed in 4-row tiles, 49 widened), an
/// 8 × 8 map's 64 and a 4 × 4 map's 16 widen (pose_landmark_full's 8 × 8 and 4 × 4
/// convolutions about 7 % faster so, Zen 3). AVX-512: blocks of at most 8 rows read in place,
/// as do 13–16 (a 4 × 4 map's 16), 21–24, 29–31, 37, 38 and 45; a 7 × 7 map's 49 rows and an
/// 8 × 8 map's 64 widen, then run on the 8- and 7-row float32 tiles.
func readsFloat16PanelsInPlace(rows: Int, _ microkernels: MicrokernelTable) -> Bool {
    readsFloat16PanelsInPlace(
        rows: rows, tileRows: microkernels.gemmTileRows, shortTileRows: microkernels.gemmShortTileRows,
        halfPanelTileRows: microkernels.gemmHalfPanelTileRows)
}

/// `readsFloat16PanelsInPlace(rows:_:)` for a family whose float32 tiles have `tileRows` and
/// `shortTileRows` rows and whose float16 ones `halfPanelTileRows` and 4 (the table's
/// `gemmTileRows`, `gemmShortTileRows` and `gemmHalfPanelTileRows`): any family's rule can be
/// checked on any CPU.
func readsFloat16PanelsInPlace(rows: Int, tileRows: Int, shortTileRows: Int, halfPanelTileRows: Int) -> Bool {
    guard rows <= maxRowsReadingFloat16Panels else { return false }
    let four = GemmFourRows.count
    guard rows > four else { return true }
    let inPlace = GemmRowTiles(rows: rows, tileRows: halfPanelTileRows, shortTileRows: four).rowsComputed
    let widening = four + GemmRowTiles(rows: rows - four, tileRows: tileRows, shortTileRows: shortTileRows).rowsComputed
    return inPlace < widening
}

/// Calls `body` with a pointer to `value`, or with nil when there is none.
func withUnsafePointer<T, Result>(
    toOptional value: T?, _ body: (UnsafePointer<T>?) -> Result
) -> Result {
    guard var value else { return body(nil) }
    return withUnsafePointer(to: &value) { body($0) }
}

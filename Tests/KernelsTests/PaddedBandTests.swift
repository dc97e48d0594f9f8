import TestSupport
import Testing

@testable import Kernels

/// `convolutionF32` reads a row's border from zero-padded bands of the input rows (`RowBands`,
/// `PaddedBand`): the bands hold exactly the taps `im2colGatherF32` gathers, the row's parts are
/// whole microkernel tiles, and the convolution keeps the bits of a GEMM over gathered taps.
@Suite struct PaddedBandTests {
    /// A random geometry whose filter is not dilated across, with explicit padding on both sides
    /// (wider than the filter at times), or nil when no output pixel fits.
    static func randomGeometry(_ rng: inout SeededGenerator) -> ConvolutionGeometry? {
        let inputHeight = Int.random(in: 1...9, using: &rng), inputWidth = Int.random(in: 1...40, using: &rng)
        let kernelHeight = Int.random(in: 1...5, using: &rng), kernelWidth = Int.random(in: 1...5, using: &rng)
        let strideHeight = Int.random(in: 1...3, using: &rng), strideWidth = Int.random(in: 1...3, using: &rng)
        let dilationHeight = Int.random(in: 1...2, using: &rng)
        let padTop = Int.random(in: 0...3, using: &rng), padBottom = Int.random(in: 0...3, using: &rng)
        let padLeft = Int.random(in: 0...6, using: &rng), padRight = Int.random(in: 0...6, using: &rng)
        let spanHeight = (kernelHeight - 1) * dilationHeight + 1
        let paddedHeight = inputHeight + padTop + padBottom, paddedWidth = inputWidth + padLeft + padRight
        guard paddedHeight >= spanHeight, paddedWidth >= kernelWidth else { return nil }
        return ConvolutionGeometry(
            inputHeight: inputHeight, inputWidth: inputWidth,
            outputHeight: (paddedHeight - spanHeight) / strideHeight + 1,
            outputWidth: (paddedWidth - kernelWidth) / strideWidth + 1,
            kernelHeight: kernelHeight, kernelWidth: kernelWidth, strideHeight: strideHeight,
            strideWidth: strideWidth, dilationHeight: dilationHeight, dilationWidth: 1,
            padTop: padTop, padLeft: padLeft)
    }

    /// The columns of every output row split into a left band, a middle read in place and a right
    /// band: together the whole row, the middle within the interior and starting and ending on
    /// whole tiles (but at the row's ends), and each band column's taps, read as the microkernels
    /// read them, the bits `im2colGatherF32` writes.
    @Test func bandsHoldTheGatheredTapsInWholeTiles() {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        var checkedColumns = 0
        for _ in 0..<400 {
            guard let g = Self.randomGeometry(&rng) else { continue }
            let channels = Int.random(in: 1...5, using: &rng)
            let tileRows = [3, 4, 6, 8].randomElement(using: &rng)!
            let image = rng.floats(g.inputHeight * g.inputWidth * channels)
            let depth = g.kernelHeight * g.kernelWidth * channels
            let context = "\(g) channels \(channels) tile rows \(tileRows) seed \(seed)"
            for oy in 0..<g.outputHeight {
                let validRows = g.validKernelRows(outputRow: oy)
                let inPlace = validRows.count == g.kernelHeight ? g.interiorColumns : 0..<0
                let bands = RowBands(geometry: g, channels: channels, inPlace: inPlace, tileRows: tileRows)
                let middle = bands.middle
                #expect(bands.left.columns.lowerBound == 0, "\(context)")
                #expect(bands.right.columns.upperBound == g.outputWidth, "\(context)")
                if middle.isEmpty {
                    #expect(bands.left.columns == 0..<g.outputWidth && bands.right.columns.isEmpty, "\(context)")
                } else {
                    #expect(bands.left.columns.upperBound == middle.lowerBound, "\(context)")
                    #expect(bands.right.columns.lowerBound == middle.upperBound, "\(context)")
                    #expect(inPlace.contains(middle.lowerBound) && middle.upperBound <= inPlace.upperBound, "\(context)")
                    #expect(middle.lowerBound % tileRows == 0, "\(context)")
                    #expect(middle.count % tileRows == 0 || middle.upperBound == g.outputWidth, "\(context)")
                }
                for band in [bands.left, bands.right] where !band.columns.isEmpty {
                    let buffer = GuardedBuffer(count: band.floats)
                    band.fill(buffer.pointer, image: image, outputRow: oy)
                    #expect(buffer.guardIntact, "filled past the band: \(context)")
                    var gathered = [Float](repeating: .nan, count: depth)
                    for ox in band.columns {
                        image.withUnsafeBufferPointer { source in
                            im2colGatherF32(
                                image: source.baseAddress!, geometry: g, channels: channels, oy: oy, ox: ox,
                                validRows: validRows, row: &gathered)
                        }
                        let runs = band.runs
                        let first = buffer.pointer + (ox - band.columns.lowerBound) * runs.rowStride
                        var read: [Float] = []
                        for segment in 0..<runs.segmentCount {
                            read += (0..<runs.segmentLength).map { first[segment * runs.segmentStride + $0] }
                        }
                        #expect(
                            read.map(\.bitPattern) == gathered.map(\.bitPattern),
                            "row \(oy) column \(ox): \(context)")
                        checkedColumns += 1
                    }
                }
            }
        }
        #expect(checkedColumns > 1000, "too few band columns checked (\(checkedColumns)), seed \(seed)")
    }

    /// The stems' shapes and a few others whose rows have borders on one side, both or all over:
    /// every output element is the bits of the GEMM of the same packed filter over the pixels'
    /// gathered taps.
    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func bordersKeepTheBitsOfGatheredTaps(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let sameGeometry = MicrokernelConvolutionTests.geometry(_:_:kernel:stride:dilation:padding:)
        let cases: [(geometry: ConvolutionGeometry?, channels: Int, outputs: Int)] = [
            // face_detection_short_range's and palm_detection's 5 × 5 stems, narrower.
            (sameGeometry(11, 64, (5, 5), 2, 1, .same), 3, 24),
            (sameGeometry(9, 37, (5, 5), 2, 1, .same), 3, 32),
            // pose_landmark_full's 3 × 3 stem after its folded PAD of 1: a left border only.
            (ConvolutionGeometry(
                inputHeight: 10, inputWidth: 50, outputHeight: 5, outputWidth: 25, kernelHeight: 3, kernelWidth: 3,
                strideHeight: 2, strideWidth: 2, dilationHeight: 1, dilationWidth: 1, padTop: 1, padLeft: 1), 3, 24),
            // A right border only (SAME at stride 2 on an even width), 16 outputs.
            (sameGeometry(8, 46, (3, 3), 2, 1, .same), 3, 16),
            // Every pixel a border pixel, and a map narrower than a tile.
            (sameGeometry(3, 3, (3, 3), 1, 1, .same), 40, 24),
            // Rows dilated (taps two input rows apart), columns not.
            (ConvolutionGeometry(
                inputHeight: 6, inputWidth: 5, kernelHeight: 3, kernelWidth: 3, strideHeight: 1, strideWidth: 1,
                dilationHeight: 2, dilationWidth: 1, padding: .same), 8, 8),
        ]
        for (geometry, channels, outputs) in cases {
            let g = try #require(geometry)
            let depth = g.kernelHeight * g.kernelWidth * channels
            let input = rng.floats(g.inputHeight * g.inputWidth * channels)
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: rng.panelWeights(outputs * depth, precision),
                bias: rng.floats(outputs), instructionSet: instructionSet)
            let context = "\(g) Cin \(channels) Cout \(outputs) \(instructionSet) \(precision) seed \(seed)"
            for threads in [1, 2] {
                let runner = ParallelRunner(threadCount: threads)
                let pixels = g.outputHeight * g.outputWidth
                let convolved = GuardedBuffer(count: pixels * outputs)
                let workspace = GuardedBuffer(
                    count: try convolutionF32WorkspaceSize(weights: packed, threadCount: threads))
                let source = GuardedBuffer(input)
                convolutionF32(
                    input: source.pointer, output: convolved.pointer, batch: 1, geometry: g,
                    inputChannels: channels, weights: packed,
                    workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count),
                    clamp: (-.infinity, .infinity), runner: runner)
                #expect(workspace.guardIntact && convolved.guardIntact, "wrote out of bounds: \(context)")

                let gathered = GuardedBuffer(count: pixels * depth)
                for oy in 0..<g.outputHeight {
                    for ox in 0..<g.outputWidth {
                        im2colGatherF32(
                            image: source.pointer, geometry: g, channels: channels, oy: oy, ox: ox,
                            validRows: g.validKernelRows(outputRow: oy),
                            row: gathered.pointer + (oy * g.outputWidth + ox) * depth)
                    }
                }
                let multiplied = GuardedBuffer(count: pixels * outputs)
                let gemmWorkspace = GuardedBuffer(count: try gemmF32WorkspaceSize(weights: packed, threadCount: 1))
                gemmF32(
                    input: gathered.pointer, rows: pixels, weights: packed, output: multiplied.pointer,
                    workspace: UnsafeMutableBufferPointer(start: gemmWorkspace.pointer, count: gemmWorkspace.count),
                    clamp: (-.infinity, .infinity), runner: .serial)
                let convolvedValues = convolved.values, multipliedValues = multiplied.values
                let firstDifference = convolvedValues.indices.first {
                    convolvedValues[$0].bitPattern != multipliedValues[$0].bitPattern
                }
                #expect(firstDifference == nil, "\(threads) threads, first at \(firstDifference ?? -1): \(context)")
            }
        }
    }
}

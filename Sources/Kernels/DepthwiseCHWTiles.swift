import KernelTemplates

/// The work items of `DepthwiseConv2DCHW.run` on small planes: item `i` is the
/// `tileChannels` channels of group `i % groups` of image `i / groups`. Each
/// item copies its channels' input planes into a channel-last tile in the
/// thread's scratch (`[H·W][tileChannels]`), runs the channel-last depthwise
/// kernels over the tile (`depthwiseF32Image`: the same sums as
/// `DepthwiseConv2D`, bit for bit), and copies the output tile back into the
/// channels' output planes.
///
/// On planes of at most a few hundred pixels the channel-last kernels, whose
/// vectors hold channels, run a 5 × 5 filter 1.5–1.9× faster than the plane
/// kernels, whose vectors hold a row's pixels (a 14-pixel row fills 14 lanes
/// of 16, and each tap is a load at another offset); the two copies cost
/// less than that, but more than a 3 × 3 filter gains (`Benchmarks/JOURNAL.md`,
/// "Small channel-major planes through the channel-last kernels").
struct DepthwiseCHWTiles: ParallelWork {
    /// Channels a tile holds: a 64-byte line a pixel.
    static let tileChannels = 16

    let geometry: ConvolutionGeometry
    let weights: PackedDepthwiseWeights
    /// `weights.instructionSet.microkernels`, looked up once per call.
    let kernels: MicrokernelTable
    let channels: Int
    /// Tiles an image: `channels` in groups of `tileChannels`, the last one possibly fewer
    /// (at least `depthwiseBandMinimumChannels`).
    let groups: Int
    /// `[N][C][H·W]` and `[N][C][OH·OW]`.
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let clamp: (lower: Float, upper: Float)
    /// `scratchPerThread` floats a thread.
    let scratch: UnsafeMutablePointer<Float>
    let scratchPerThread: Int

    /// Floats of scratch a thread needs for `geometry`: an input tile and an output tile.
    static func scratchFloats(_ geometry: ConvolutionGeometry) -> Int {
        // Tensor dimensions: no overflow.
        (geometry.inputHeight * geometry.inputWidth + geometry.outputHeight * geometry.outputWidth) * tileChannels
    }

    func run(_ items: Range<Int>, thread: Int) {
        let g = geometry, tileChannels = Self.tileChannels
        let inputPixels = g.inputHeight * g.inputWidth, outputPixels = g.outputHeight * g.outputWidth
        let inputTile = scratch + thread * scratchPerThread
        let outputTile = inputTile + inputPixels * tileChannels
        for item in items {
            let n = item / groups, first = item % groups * tileChannels
            let count = min(tileChannels, channels - first)
            // The channels' input planes, `[count][inputPixels]`, as the tile's `[inputPixels][tileChannels]`.
            transposeMatrix(
                input + (n * channels + first) * inputPixels, rows: count, columns: inputPixels,
                sourceStride: inputPixels, into: inputTile, targetStride: tileChannels)
            depthwiseF32Image(
                geometry: g, weights: weights, kernels: kernels, image: inputTile, output: outputTile,
                pixelStep: tileChannels, channels: first..<(first + count), clamp: clamp)
            // And the output tile back into the channels' planes.
            transposeMatrix(
                outputTile, rows: outputPixels, columns: count, sourceStride: tileChannels,
                into: output + (n * channels + first) * outputPixels, targetStride: outputPixels)
        }
    }
}

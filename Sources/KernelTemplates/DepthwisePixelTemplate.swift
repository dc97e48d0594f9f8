// The depthwise kernel for one output pixel with any window of valid taps (the border of a
// row, and the channels past the last whole vector everywhere), written once for every
// family: the pixel's channels from the bias, one multiply-add per valid tap, filter column
// by filter column (rows inner: XNNPACK's tap order, as every depthwise kernel sums them).

/// The valid taps of one output pixel, as pointer steps.
public struct DepthwiseTapWalk {
    /// Filter rows that land inside the input.
    public var kernelRows: Int
    /// Filter columns that land inside the input.
    public var kernelColumns: Int
    /// Floats between the input rows of consecutive filter rows (`dh·W·C`).
    public var inputRowStep: Int
    /// Floats between the input pixels of consecutive filter columns (`dw·C`).
    public var inputTapStep: Int
    /// Floats between consecutive filter rows in the packed weights.
    public var weightRowStep: Int
    /// Floats between consecutive filter columns in the packed weights.
    public var weightTapStep: Int

    @inlinable
    public init(
        kernelRows: Int, kernelColumns: Int, inputRowStep: Int, inputTapStep: Int,
        weightRowStep: Int, weightTapStep: Int
    ) {
        self.kernelRows = kernelRows
        self.kernelColumns = kernelColumns
        self.inputRowStep = inputRowStep
        self.inputTapStep = inputTapStep
        self.weightRowStep = weightRowStep
        self.weightTapStep = weightTapStep
    }
}

/// All `channels` of one output pixel: four vectors of `Wide` at a time, then one, then one
/// vector of `Narrow` where it is narrower and fits, then the channels left over as the last
/// `Narrow` vector of the pixel (rewriting a few channels with the same values, as
/// `depthwiseInterior` does), one by one only when the pixel has fewer channels than a
/// `Narrow` vector. Same parameters as
/// `depthwisePixelVectors`. Instantiate it with the family's own `KernelVectors` types from a
/// non-generic `@inline(never)` function of the family's module.
@inlinable @inline(__always)
public func depthwisePixel<Wide: KernelVectors, Narrow: KernelVectors>(
    _ wide: Wide.Type, _ narrow: Narrow.Type, walk: DepthwiseTapWalk, input: UnsafePointer<Float>,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    channels: Int, lower: Float, upper: Float
) {
    let width = Wide.Vector.scalarCount, narrowWidth = Narrow.Vector.scalarCount
    var c = 0
    while c + 4 * width <= channels {
        depthwisePixelVectors(
            Wide.self, vectors: 4, walk: walk, input: input, weights: weights, bias: bias,
            output: output, channel: c, lower: lower, upper: upper)
        c += 4 * width
    }
    while c + width <= channels {
        depthwisePixelVectors(
            Wide.self, vectors: 1, walk: walk, input: input, weights: weights, bias: bias,
            output: output, channel: c, lower: lower, upper: upper)
        c += width
    }
    if narrowWidth < width && c + narrowWidth <= channels {
        depthwisePixelVectors(
            Narrow.self, vectors: 1, walk: walk, input: input, weights: weights, bias: bias,
            output: output, channel: c, lower: lower, upper: upper)
        c += narrowWidth
    }
    if c < channels && channels >= narrowWidth {
        depthwisePixelVectors(
            Narrow.self, vectors: 1, walk: walk, input: input, weights: weights, bias: bias,
            output: output, channel: channels - narrowWidth, lower: lower, upper: upper)
    } else if c < channels {
        depthwisePixelScalarChannels(
            Wide.self, walk: walk, input: input, weights: weights, bias: bias, output: output,
            channels: c..<channels, lower: lower, upper: upper)
    }
}

/// Channels `channel ..< channel + vectors·width` of one output pixel (`vectors` is 1 or 4:
/// one accumulator for each vector of channels), with the vectors of `Vectors` (its `count`
/// is not used). Instantiate it with the family's own `KernelVectors` type.
/// - Parameters:
///   - input: the pixel's first valid tap, channel 0.
///   - weights: the packed weights of that tap, channel 0.
///   - bias: the biases of the channels.
///   - output: the pixel's channel 0.
@inlinable @inline(__always)
public func depthwisePixelVectors<Vectors: KernelVectors>(
    _ family: Vectors.Type, vectors: Int, walk: DepthwiseTapWalk, input: UnsafePointer<Float>,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    channel c: Int, lower: Float, upper: Float
) {
    typealias V = Vectors.Vector
    let width = V.scalarCount, four = vectors == 4
    var a0 = loadVector(bias + c, as: V.self)
    var a1 = four ? loadVector(bias + c + width, as: V.self) : a0
    var a2 = four ? loadVector(bias + c + 2 * width, as: V.self) : a0
    var a3 = four ? loadVector(bias + c + 3 * width, as: V.self) : a0
    var column = input + c, weightColumn = weights + c
    for _ in 0..<walk.kernelColumns {
        var tap = column, w = weightColumn
        for _ in 0..<walk.kernelRows {
            a0 = Vectors.multiplyAdd(loadVector(tap, as: V.self), loadVector(w, as: V.self), a0)
            if four {
                a1 = Vectors.multiplyAdd(loadVector(tap + width, as: V.self), loadVector(w + width, as: V.self), a1)
                a2 = Vectors.multiplyAdd(
                    loadVector(tap + 2 * width, as: V.self), loadVector(w + 2 * width, as: V.self), a2)
                a3 = Vectors.multiplyAdd(
                    loadVector(tap + 3 * width, as: V.self), loadVector(w + 3 * width, as: V.self), a3)
            }
            tap += walk.inputRowStep
            w += walk.weightRowStep
        }
        column += walk.inputTapStep
        weightColumn += walk.weightTapStep
    }
    let lo = Vectors.broadcast(lower), hi = Vectors.broadcast(upper)
    storeVector(Vectors.clamp(a0, lower: lo, upper: hi), output + c)
    if four {
        storeVector(Vectors.clamp(a1, lower: lo, upper: hi), output + c + width)
        storeVector(Vectors.clamp(a2, lower: lo, upper: hi), output + c + 2 * width)
        storeVector(Vectors.clamp(a3, lower: lo, upper: hi), output + c + 3 * width)
    }
}

/// The channels in `channels` of one output pixel, one at a time, with the family's scalar
/// multiply-add: the channels past the last whole vector. Same parameters as
/// `depthwisePixelVectors`.
@inlinable @inline(__always)
public func depthwisePixelScalarChannels<Vectors: KernelVectors>(
    _ family: Vectors.Type, walk: DepthwiseTapWalk, input: UnsafePointer<Float>,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    channels: Range<Int>, lower: Float, upper: Float
) {
    for c in channels {
        var sum = bias[c]
        var column = input + c, weightColumn = weights + c
        for _ in 0..<walk.kernelColumns {
            var tap = column, w = weightColumn
            for _ in 0..<walk.kernelRows {
                sum = Vectors.multiplyAdd(tap.pointee, w.pointee, sum)
                tap += walk.inputRowStep
                w += walk.weightRowStep
            }
            column += walk.inputTapStep
            weightColumn += walk.weightTapStep
        }
        // clamp with the vector clamp's NaN behaviour: a NaN stays NaN.
        let raised = sum < lower ? lower : sum
        output[c] = upper < raised ? upper : raised
    }
}

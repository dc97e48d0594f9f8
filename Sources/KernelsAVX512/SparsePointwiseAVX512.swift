import KernelTemplates

// The 512-bit microkernels of the sparse 1×1 convolution on channel-major
// tensors (Kernels' `SparsePointwiseConv2DCHW`): `[N][C][P]` activations,
// P = H·W pixels contiguous per channel, and a filter stored as its
// non-zero values per output channel.
//
// One call computes one tile of up to 64 consecutive pixels for a range of
// output channels, over one block of input channels. Per non-zero weight it
// broadcasts the weight and adds its product with the input row's pixels:
// four vectors of 16 in a full tile, two or one in the pieces of a short
// tile. The non-zeros of a channel go round-robin to four sets of
// accumulators (so that at least eight fused multiply-adds are in flight),
// added at the end as `(s0 + s1) + (s2 + s3)`; the first set starts from the
// bias or the previous block's sums. Which kernel computes a pixel depends only on P,
// and the order of its operations only on the channel's non-zeros and the
// blocks of input channels, never on the range of channels a call is given
// or the thread that makes it, so every pixel's result is the same
// whoever computes it. Per non-zero, the kernels load its value and its
// row offset and read the input row once per vector: they are bound by
// loads, not by multiply-adds.

/// The non-zero weights of a filter, per block of input channels and, within
/// a block, per output channel: the non-zeros of output channel `oc` in
/// block `b` are `starts[b·Cout + oc] ..< starts[b·Cout + oc + 1]`, in
/// ascending input channel order; non-zero `k` is `values[k]` times the
/// input row at float offset `offsets[k]` (its input channel times the
/// row length P).
public struct SparseWeightsAVX512 {
    public var values: UnsafePointer<Float>
    public var offsets: UnsafePointer<Int32>
    public var starts: UnsafePointer<Int32>
    /// Cout.
    public var outputChannels: Int

    public init(
        values: UnsafePointer<Float>, offsets: UnsafePointer<Int32>, starts: UnsafePointer<Int32>,
        outputChannels: Int
    ) {
        self.values = values
        self.offsets = offsets
        self.starts = starts
        self.outputChannels = outputChannels
    }
}

/// Where one call reads its initial sums and writes its results.
public struct SparseTileAVX512 {
    /// The tile's first pixel of input channel 0: row `ic` at `input + offset`
    /// for each non-zero of `ic` (`SparseWeightsAVX512.offsets`).
    public var input: UnsafePointer<Float>
    /// Pixels in the tile, 1...64.
    public var pixels: Int
    /// Output channels computed.
    public var channels: Range<Int>
    /// Non-zeros of which block of input channels.
    public var block: Int
    /// Sums carried between blocks, 64 floats per channel of `channels` (in
    /// order): read unless `block` is 0 (the sums then start from the bias),
    /// written unless `isLast`. Nil only for a single block (first and last).
    public var partial: UnsafeMutablePointer<Float>?
    /// Whether this is the last block: the sums are then clamped, finished
    /// and stored to `output`; otherwise they are stored to `partial`.
    public var isLast: Bool

    public init(
        input: UnsafePointer<Float>, pixels: Int, channels: Range<Int>, block: Int,
        partial: UnsafeMutablePointer<Float>?, isLast: Bool
    ) {
        self.input = input
        self.pixels = pixels
        self.channels = channels
        self.block = block
        self.partial = partial
        self.isLast = isLast
    }
}

/// How the last block finishes and stores a channel's sums:
/// `y = clamp(sum, lower, upper)`, then, with a residual,
/// `y = clamp(residualFirst ? r + y : y + r, addLower, addUpper)` (the
/// float operations of a fused ADD), stored to the tile's pixels of
/// `output + oc·P` (never past them).
public struct SparseOutputAVX512 {
    /// The tile's first pixel of output channel 0.
    public var output: UnsafeMutablePointer<Float>
    /// The residual at the same position (the output's layout), or nil.
    public var residual: UnsafePointer<Float>?
    /// Floats between consecutive channels of output and residual: P.
    public var channelStride: Int
    public var bias: UnsafePointer<Float>
    public var lower: Float
    public var upper: Float
    public var addLower: Float
    public var addUpper: Float
    public var residualFirst: Bool

    public init(
        output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?, channelStride: Int,
        bias: UnsafePointer<Float>, lower: Float, upper: Float,
        addLower: Float, addUpper: Float, residualFirst: Bool
    ) {
        self.output = output
        self.residual = residual
        self.channelStride = channelStride
        self.bias = bias
        self.lower = lower
        self.upper = upper
        self.addLower = addLower
        self.addUpper = addUpper
        self.residualFirst = residualFirst
    }
}

/// Computes `tile` with `weights` and finishes it into `out` (last block)
/// or its partial sums. A tile of 49...64 pixels runs the 64-pixel kernel;
/// a shorter one (the last of a row) runs the 32-pixel kernel on each 32
/// pixels while more than 16 remain and the 16-pixel kernel on the rest.
/// Reads up to 15 floats past the tile's last pixel of each input (and
/// residual) row; writes only the tile's pixels.
@inline(never)
public func sparsePointwiseCHWTileAVX512(
    _ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512
) {
    precondition(
        (1...64).contains(tile.pixels) && (tile.partial != nil || (tile.block == 0 && tile.isLast)),
        "a tile of 1...64 pixels, with partial sums unless it is a single block")
    if tile.pixels > 48 {
        sparseTile64(tile, weights: weights, out: out)
        return
    }
    var part = tile, finish = out
    var done = 0
    while done < tile.pixels {
        let rest = tile.pixels - done
        part.input = tile.input + done
        part.partial = tile.partial.map { $0 + done }
        part.pixels = min(rest, 32)
        finish.output = out.output + done
        finish.residual = out.residual.map { $0 + done }
        if rest > 16 {
            sparseTile32(part, weights: weights, out: finish)
            done += 32
        } else {
            sparseTile16(part, weights: weights, out: finish)
            done += 16
        }
    }
}

/// Floats per output channel in `SparseTileAVX512.partial` and per input
/// row of a packed tile: Kernels' `SparsePointwiseConv2DCHW.tilePixels`.
let sparseTileWidth = 64

/// The sums carried between blocks for output channel `oc`, or nil.
@inline(__always)
private func partialSlot(_ tile: SparseTileAVX512, _ oc: Int) -> UnsafeMutablePointer<Float>? {
    tile.partial.map { $0 + (oc - tile.channels.lowerBound) * sparseTileWidth }
}

/// `clamp(y, lower, upper)`, then the fused ADD of the residual at `residual`.
@inline(__always)
private func finish(
    _ y: SIMD16<Float>, residual: UnsafePointer<Float>?, out: SparseOutputAVX512,
    lo: SIMD16<Float>, hi: SIMD16<Float>, addLo: SIMD16<Float>, addHi: SIMD16<Float>
) -> SIMD16<Float> {
    let value = clamp(y, lower: lo, upper: hi)
    guard let residual else { return value }
    let r = loadVector16(residual)
    return clamp(out.residualFirst ? r + value : value + r, lower: addLo, upper: addHi)
}

/// A tile of 49...64 pixels: four vectors per input row, the non-zeros
/// going round-robin to four sets of accumulators.
@inline(__always)
private func sparseTile64(
    _ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512
) {
    let values = weights.values, offsets = weights.offsets
    let starts = weights.starts + tile.block * weights.outputChannels
    let input = tile.input
    let zero = SIMD16<Float>(repeating: 0)
    let lo = SIMD16<Float>(repeating: out.lower), hi = SIMD16<Float>(repeating: out.upper)
    let addLo = SIMD16<Float>(repeating: out.addLower), addHi = SIMD16<Float>(repeating: out.addUpper)
    for oc in tile.channels {
        let slot = partialSlot(tile, oc)
        var a0: SIMD16<Float>, b0: SIMD16<Float>, c0: SIMD16<Float>, d0: SIMD16<Float>
        if tile.block > 0, let slot {
            a0 = loadVector16(slot); b0 = loadVector16(slot + 16)
            c0 = loadVector16(slot + 32); d0 = loadVector16(slot + 48)
        } else {
            a0 = SIMD16(repeating: out.bias[oc]); b0 = a0; c0 = a0; d0 = a0
        }
        var a1 = zero, b1 = zero, c1 = zero, d1 = zero
        var a2 = zero, b2 = zero, c2 = zero, d2 = zero
        var a3 = zero, b3 = zero, c3 = zero, d3 = zero
        var k = Int(starts[oc])
        let end = Int(starts[oc + 1])
        while k + 4 <= end {
            let x0 = input + Int(offsets[k]), x1 = input + Int(offsets[k + 1])
            let x2 = input + Int(offsets[k + 2]), x3 = input + Int(offsets[k + 3])
            let w0 = SIMD16<Float>(repeating: values[k]), w1 = SIMD16<Float>(repeating: values[k + 1])
            let w2 = SIMD16<Float>(repeating: values[k + 2]), w3 = SIMD16<Float>(repeating: values[k + 3])
            a0 = a0.addingProduct(w0, loadVector16(x0)); b0 = b0.addingProduct(w0, loadVector16(x0 + 16))
            c0 = c0.addingProduct(w0, loadVector16(x0 + 32)); d0 = d0.addingProduct(w0, loadVector16(x0 + 48))
            a1 = a1.addingProduct(w1, loadVector16(x1)); b1 = b1.addingProduct(w1, loadVector16(x1 + 16))
            c1 = c1.addingProduct(w1, loadVector16(x1 + 32)); d1 = d1.addingProduct(w1, loadVector16(x1 + 48))
            a2 = a2.addingProduct(w2, loadVector16(x2)); b2 = b2.addingProduct(w2, loadVector16(x2 + 16))
            c2 = c2.addingProduct(w2, loadVector16(x2 + 32)); d2 = d2.addingProduct(w2, loadVector16(x2 + 48))
            a3 = a3.addingProduct(w3, loadVector16(x3)); b3 = b3.addingProduct(w3, loadVector16(x3 + 16))
            c3 = c3.addingProduct(w3, loadVector16(x3 + 32)); d3 = d3.addingProduct(w3, loadVector16(x3 + 48))
            k += 4
        }
        if k < end {
            let x = input + Int(offsets[k]), w = SIMD16<Float>(repeating: values[k])
            a0 = a0.addingProduct(w, loadVector16(x)); b0 = b0.addingProduct(w, loadVector16(x + 16))
            c0 = c0.addingProduct(w, loadVector16(x + 32)); d0 = d0.addingProduct(w, loadVector16(x + 48))
        }
        if k + 1 < end {
            let x = input + Int(offsets[k + 1]), w = SIMD16<Float>(repeating: values[k + 1])
            a1 = a1.addingProduct(w, loadVector16(x)); b1 = b1.addingProduct(w, loadVector16(x + 16))
            c1 = c1.addingProduct(w, loadVector16(x + 32)); d1 = d1.addingProduct(w, loadVector16(x + 48))
        }
        if k + 2 < end {
            let x = input + Int(offsets[k + 2]), w = SIMD16<Float>(repeating: values[k + 2])
            a2 = a2.addingProduct(w, loadVector16(x)); b2 = b2.addingProduct(w, loadVector16(x + 16))
            c2 = c2.addingProduct(w, loadVector16(x + 32)); d2 = d2.addingProduct(w, loadVector16(x + 48))
        }
        let sumA = (a0 + a1) + (a2 + a3), sumB = (b0 + b1) + (b2 + b3)
        let sumC = (c0 + c1) + (c2 + c3), sumD = (d0 + d1) + (d2 + d3)
        if !tile.isLast, let slot {
            storeVector16(sumA, slot); storeVector16(sumB, slot + 16)
            storeVector16(sumC, slot + 32); storeVector16(sumD, slot + 48)
            continue
        }
        let row = oc * out.channelStride
        let output = out.output + row
        let residual = out.residual.map { $0 + row }
        storeVector16(finish(sumA, residual: residual, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi), output)
        storeVector16(
            finish(sumB, residual: residual.map { $0 + 16 }, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi),
            output + 16)
        storeVector16(
            finish(sumC, residual: residual.map { $0 + 32 }, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi),
            output + 32)
        storeVector16(
            finish(sumD, residual: residual.map { $0 + 48 }, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi),
            output + 48, count: tile.pixels - 48)
    }
}

/// 17...32 pixels of a short tile: two vectors per input row, the
/// non-zeros going round-robin to four sets of accumulators.
@inline(__always)
private func sparseTile32(
    _ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512
) {
    let values = weights.values, offsets = weights.offsets
    let starts = weights.starts + tile.block * weights.outputChannels
    let input = tile.input
    let zero = SIMD16<Float>(repeating: 0)
    let lo = SIMD16<Float>(repeating: out.lower), hi = SIMD16<Float>(repeating: out.upper)
    let addLo = SIMD16<Float>(repeating: out.addLower), addHi = SIMD16<Float>(repeating: out.addUpper)
    for oc in tile.channels {
        let slot = partialSlot(tile, oc)
        var a0: SIMD16<Float>, b0: SIMD16<Float>
        if tile.block > 0, let slot {
            a0 = loadVector16(slot)
            b0 = loadVector16(slot + 16)
        } else {
            a0 = SIMD16(repeating: out.bias[oc])
            b0 = a0
        }
        var a1 = zero, b1 = zero, a2 = zero, b2 = zero, a3 = zero, b3 = zero
        var k = Int(starts[oc])
        let end = Int(starts[oc + 1])
        while k + 4 <= end {
            let x0 = input + Int(offsets[k]), x1 = input + Int(offsets[k + 1])
            let x2 = input + Int(offsets[k + 2]), x3 = input + Int(offsets[k + 3])
            let w0 = SIMD16<Float>(repeating: values[k]), w1 = SIMD16<Float>(repeating: values[k + 1])
            let w2 = SIMD16<Float>(repeating: values[k + 2]), w3 = SIMD16<Float>(repeating: values[k + 3])
            a0 = a0.addingProduct(w0, loadVector16(x0)); b0 = b0.addingProduct(w0, loadVector16(x0 + 16))
            a1 = a1.addingProduct(w1, loadVector16(x1)); b1 = b1.addingProduct(w1, loadVector16(x1 + 16))
            a2 = a2.addingProduct(w2, loadVector16(x2)); b2 = b2.addingProduct(w2, loadVector16(x2 + 16))
            a3 = a3.addingProduct(w3, loadVector16(x3)); b3 = b3.addingProduct(w3, loadVector16(x3 + 16))
            k += 4
        }
        if k < end {
            let x = input + Int(offsets[k]), w = SIMD16<Float>(repeating: values[k])
            a0 = a0.addingProduct(w, loadVector16(x)); b0 = b0.addingProduct(w, loadVector16(x + 16))
        }
        if k + 1 < end {
            let x = input + Int(offsets[k + 1]), w = SIMD16<Float>(repeating: values[k + 1])
            a1 = a1.addingProduct(w, loadVector16(x)); b1 = b1.addingProduct(w, loadVector16(x + 16))
        }
        if k + 2 < end {
            let x = input + Int(offsets[k + 2]), w = SIMD16<Float>(repeating: values[k + 2])
            a2 = a2.addingProduct(w, loadVector16(x)); b2 = b2.addingProduct(w, loadVector16(x + 16))
        }
        let sumA = (a0 + a1) + (a2 + a3), sumB = (b0 + b1) + (b2 + b3)
        if !tile.isLast, let slot {
            storeVector16(sumA, slot)
            storeVector16(sumB, slot + 16)
            continue
        }
        let row = oc * out.channelStride
        let residual = out.residual.map { $0 + row }
        storeVector16(
            finish(sumA, residual: residual, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi),
            out.output + row)
        storeVector16(
            finish(sumB, residual: residual.map { $0 + 16 }, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi),
            out.output + row + 16, count: tile.pixels - 16)
    }
}

/// 1...16 pixels of a short tile: one vector per input row, the non-zeros
/// going round-robin to four accumulators.
@inline(__always)
private func sparseTile16(
    _ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512
) {
    let values = weights.values, offsets = weights.offsets
    let starts = weights.starts + tile.block * weights.outputChannels
    let input = tile.input
    let zero = SIMD16<Float>(repeating: 0)
    let lo = SIMD16<Float>(repeating: out.lower), hi = SIMD16<Float>(repeating: out.upper)
    let addLo = SIMD16<Float>(repeating: out.addLower), addHi = SIMD16<Float>(repeating: out.addUpper)
    for oc in tile.channels {
        let slot = partialSlot(tile, oc)
        var a0 = SIMD16<Float>(repeating: out.bias[oc])
        if tile.block > 0, let slot { a0 = loadVector16(slot) }
        var a1 = zero, a2 = zero, a3 = zero
        var k = Int(starts[oc])
        let end = Int(starts[oc + 1])
        while k + 4 <= end {
            a0 = a0.addingProduct(SIMD16(repeating: values[k]), loadVector16(input + Int(offsets[k])))
            a1 = a1.addingProduct(SIMD16(repeating: values[k + 1]), loadVector16(input + Int(offsets[k + 1])))
            a2 = a2.addingProduct(SIMD16(repeating: values[k + 2]), loadVector16(input + Int(offsets[k + 2])))
            a3 = a3.addingProduct(SIMD16(repeating: values[k + 3]), loadVector16(input + Int(offsets[k + 3])))
            k += 4
        }
        if k < end {
            a0 = a0.addingProduct(SIMD16(repeating: values[k]), loadVector16(input + Int(offsets[k])))
        }
        if k + 1 < end {
            a1 = a1.addingProduct(SIMD16(repeating: values[k + 1]), loadVector16(input + Int(offsets[k + 1])))
        }
        if k + 2 < end {
            a2 = a2.addingProduct(SIMD16(repeating: values[k + 2]), loadVector16(input + Int(offsets[k + 2])))
        }
        let sum = (a0 + a1) + (a2 + a3)
        if !tile.isLast, let slot {
            storeVector16(sum, slot)
            continue
        }
        let row = oc * out.channelStride
        storeVector16(
            finish(sum, residual: out.residual.map { $0 + row }, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi),
            out.output + row, count: tile.pixels)
    }
}

/// Copies the pixels `0 ..< pixels` (1...64) of `channels` input rows
/// (row `c` at `input + c·channelStride`) to `packed`, 64 floats per row,
/// so that the tile kernels read aligned, contiguous rows whatever the row
/// length: as many vectors of 16 as cover `pixels` (lanes past `pixels`
/// hold whatever follows them in the input). Reads up to 15 floats past
/// the last pixel of a row.
@inline(never)
public func packSparseTileAVX512(
    input: UnsafePointer<Float>, channelStride: Int, channels: Int, pixels: Int,
    packed: UnsafeMutablePointer<Float>
) {
    var source = input, target = packed
    let vectors = (pixels + 15) / 16
    if vectors == 4 {
        for _ in 0..<channels {
            storeVector16(loadVector16(source), target)
            storeVector16(loadVector16(source + 16), target + 16)
            storeVector16(loadVector16(source + 32), target + 32)
            storeVector16(loadVector16(source + 48), target + 48)
            source += channelStride
            target += sparseTileWidth
        }
        return
    }
    for _ in 0..<channels {
        for v in 0..<vectors { storeVector16(loadVector16(source + 16 * v), target + 16 * v) }
        source += channelStride
        target += sparseTileWidth
    }
}

// The 512-bit microkernels of the sparse 1×1 convolution on channel-major
// tensors (Kernels' `SparsePointwiseConv2DCHW`): `[N][C][P]` activations,
// P = H·W pixels contiguous per channel, and a filter stored as its
// non-zero values per output channel.
//
// One call computes one tile of up to 64 consecutive pixels for a range of
// output channels, over one block of input channels. Per non-zero weight it
// broadcasts the weight and adds its product with the input row's pixels:
// four vectors of 16 in a full tile, two or one in the pieces of a short
// tile. Each output's sum starts from the bias (or the previous block's
// sums) and adds one fused multiply-add per non-zero in ascending input
// channel order, exactly as the dense GEMM adds every product (a zero
// weight's product leaves a finite sum unchanged), so the two agree bit
// for bit; two output channels go together, so that their chains of
// multiply-adds overlap. The order of a pixel's operations depends only on
// the channel's non-zeros, never on the range of channels a call is given
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

/// How many vectors of 16 pixels a tile kernel covers: 4, 2 or 1.
private protocol SparseTileVectors { static var count: Int { get } }
private enum FourVectors: SparseTileVectors { static var count: Int { 4 } }
private enum TwoVectors: SparseTileVectors { static var count: Int { 2 } }
private enum OneVector: SparseTileVectors { static var count: Int { 1 } }

/// A tile of 49...64 pixels: four vectors per input row.
@inline(__always)
private func sparseTile64(_ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512) {
    sparseTile(FourVectors.self, tile, weights: weights, out: out)
}

/// 17...32 pixels of a short tile: two vectors per input row.
@inline(__always)
private func sparseTile32(_ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512) {
    sparseTile(TwoVectors.self, tile, weights: weights, out: out)
}

/// 1...16 pixels of a short tile: one vector per input row.
@inline(__always)
private func sparseTile16(_ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512) {
    sparseTile(OneVector.self, tile, weights: weights, out: out)
}

/// The sums of one output channel over `Vectors.count` vectors of pixels.
private struct SparseSums {
    var v0: SIMD16<Float>, v1: SIMD16<Float>, v2: SIMD16<Float>, v3: SIMD16<Float>

    /// The bias, or the sums the previous block left in `slot`.
    @inline(__always)
    init<Vectors: SparseTileVectors>(_ vectors: Vectors.Type, tile: SparseTileAVX512, slot: UnsafeMutablePointer<Float>?, bias: Float) {
        if tile.block > 0, let slot {
            v0 = loadVector16(slot)
            v1 = Vectors.count > 1 ? loadVector16(slot + 16) : v0
            v2 = Vectors.count > 2 ? loadVector16(slot + 32) : v0
            v3 = Vectors.count > 2 ? loadVector16(slot + 48) : v0
        } else {
            v0 = SIMD16(repeating: bias)
            v1 = v0; v2 = v0; v3 = v0
        }
    }

    /// Adds non-zero `k`: its value times its input row.
    @inline(__always)
    mutating func add<Vectors: SparseTileVectors>(
        _ vectors: Vectors.Type, _ k: Int, weights: SparseWeightsAVX512, input: UnsafePointer<Float>
    ) {
        let x = input + Int(weights.offsets[k]), w = SIMD16<Float>(repeating: weights.values[k])
        v0 = v0.addingProduct(w, loadVector16(x))
        if Vectors.count > 1 { v1 = v1.addingProduct(w, loadVector16(x + 16)) }
        if Vectors.count > 2 {
            v2 = v2.addingProduct(w, loadVector16(x + 32))
            v3 = v3.addingProduct(w, loadVector16(x + 48))
        }
    }

    /// Stores the sums to `slot` (not the last block), or finishes them
    /// into output channel `oc` (the last block).
    @inline(__always)
    func store<Vectors: SparseTileVectors>(
        _ vectors: Vectors.Type, tile: SparseTileAVX512, slot: UnsafeMutablePointer<Float>?, oc: Int,
        out: SparseOutputAVX512
    ) {
        if !tile.isLast, let slot {
            storeVector16(v0, slot)
            if Vectors.count > 1 { storeVector16(v1, slot + 16) }
            if Vectors.count > 2 { storeVector16(v2, slot + 32); storeVector16(v3, slot + 48) }
            return
        }
        let lo = SIMD16<Float>(repeating: out.lower), hi = SIMD16<Float>(repeating: out.upper)
        let addLo = SIMD16<Float>(repeating: out.addLower), addHi = SIMD16<Float>(repeating: out.addUpper)
        let row = oc * out.channelStride
        let output = out.output + row
        let residual = out.residual.map { $0 + row }
        @inline(__always)
        func put(_ sum: SIMD16<Float>, _ v: Int) {
            let value = finish(sum, residual: residual.map { $0 + 16 * v }, out: out, lo: lo, hi: hi, addLo: addLo, addHi: addHi)
            storeVector16(value, output + 16 * v, count: min(16, tile.pixels - 16 * v))
        }
        put(v0, 0)
        if Vectors.count > 1 { put(v1, 1) }
        if Vectors.count > 2 { put(v2, 2); put(v3, 3) }
    }
}

/// The tile kernel: each output's sum starts from the bias (or the previous
/// block's sums) and adds its non-zero products one fused multiply-add at a
/// time in ascending input channel order, as a dense kernel adds every
/// product (a zero weight's product leaves a sum unchanged), so the result
/// equals the dense GEMM's bit for bit. Output channels go in pairs, their
/// non-zeros interleaved, so that two channels' `Vectors.count` chains of
/// multiply-adds overlap.
@inline(__always)
private func sparseTile<Vectors: SparseTileVectors>(
    _ vectors: Vectors.Type, _ tile: SparseTileAVX512, weights: SparseWeightsAVX512, out: SparseOutputAVX512
) {
    let starts = weights.starts + tile.block * weights.outputChannels
    let input = tile.input
    var oc = tile.channels.lowerBound
    while oc < tile.channels.upperBound {
        let paired = oc + 1 < tile.channels.upperBound
        let slotA = partialSlot(tile, oc), slotB = paired ? partialSlot(tile, oc + 1) : nil
        var a = SparseSums(Vectors.self, tile: tile, slot: slotA, bias: out.bias[oc])
        var b = paired ? SparseSums(Vectors.self, tile: tile, slot: slotB, bias: out.bias[oc + 1]) : a
        var ka = Int(starts[oc]), kb = paired ? Int(starts[oc + 1]) : 0
        let endA = Int(starts[oc + 1]), endB = paired ? Int(starts[oc + 2]) : 0
        while ka < endA && kb < endB {
            a.add(Vectors.self, ka, weights: weights, input: input)
            b.add(Vectors.self, kb, weights: weights, input: input)
            ka += 1
            kb += 1
        }
        while ka < endA {
            a.add(Vectors.self, ka, weights: weights, input: input)
            ka += 1
        }
        while kb < endB {
            b.add(Vectors.self, kb, weights: weights, input: input)
            kb += 1
        }
        a.store(Vectors.self, tile: tile, slot: slotA, oc: oc, out: out)
        if paired { b.store(Vectors.self, tile: tile, slot: slotB, oc: oc + 1, out: out) }
        oc += paired ? 2 : 1
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

// The sparse 1×1 convolution on channel-major tensors (Kernels' `SparsePointwiseConv2DCHW`),
// written once for every family: `[N][C][P]` activations, P = H·W pixels contiguous per
// channel, and a filter stored as its non-zero values per output channel.
//
// One call computes one tile of up to 64 consecutive pixels for a range of output channels,
// over one block of input channels. Each pixel of each output channel is ONE chain of
// multiply-adds: it starts from the bias (or the previous block's sum, which continues the same
// chain) and takes one `Vectors.multiplyAdd(input, weight, sum)` per non-zero weight in
// ascending input channel order, then the activation's clamp and a fused ADD's clamp. That is
// the dense GEMM's order (`gemmTile`: bias, then one multiply-add per k in ascending k order,
// then the clamp and the epilogue) with the zero weights left out, and leaving one out changes
// nothing for finite inputs: `multiplyAdd(x, ±0, s) == s` unless `s` is −0 and `x·±0` is +0,
// and a sum that starts from a bias other than −0 is never −0 (a sum of non-zero values that
// cancels is +0 in round-to-nearest, and +0 + −0 is +0). The caller keeps every weight of an
// output channel whose bias is −0, so the result is the dense kernel's bit for bit. Independent
// chains come from the tile's pixels (four units of `Vectors`: 64 pixels, 4 or 8 vectors),
// never from splitting one sum.

/// The non-zero weights of a filter, per block of input channels and, within a block, per
/// output channel: the non-zeros of output channel `oc` in block `b` are
/// `starts[b·Cout + oc] ..< starts[b·Cout + oc + 1]`, in ascending input channel order;
/// non-zero `k` is `values[k]` times the input row at float offset `offsets[k]`.
public struct SparsePointwiseWeights {
    public var values: UnsafePointer<Float>
    public var offsets: UnsafePointer<Int32>
    public var starts: UnsafePointer<Int32>
    /// Cout.
    public var outputChannels: Int

    @inlinable
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

/// Where one call reads its input and initial sums and writes its sums.
public struct SparsePointwiseTile {
    /// Pixels per tile, and floats per output channel in `partial` and per input row of a packed
    /// tile.
    public static let width = 64

    /// The tile's first pixel of input channel 0: row `ic` at `input + offset` for each non-zero
    /// of `ic` (`SparsePointwiseWeights.offsets`).
    public var input: UnsafePointer<Float>
    /// Pixels in the tile, 1...64.
    public var pixels: Int
    /// Output channels computed.
    public var channels: Range<Int>
    /// Non-zeros of which block of input channels.
    public var block: Int
    /// Sums carried between blocks, `width` floats per channel of `channels` (in order): read
    /// unless `block` is 0 (the sums then start from the bias), written unless `isLast`. Nil only
    /// for a single block (first and last).
    public var partial: UnsafeMutablePointer<Float>?
    /// Whether this is the last block: the sums are then clamped, finished and stored to the
    /// output; otherwise they are stored to `partial`.
    public var isLast: Bool

    @inlinable
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

/// How the last block finishes and stores a channel's sums, with the float operations of the
/// dense convolution's clamp and fused ADD: `y = clamp(sum, lower, upper)`, then, with a
/// residual, `y = clamp(residualFirst ? r + y : y + r, addLower, addUpper)`, stored to the
/// tile's pixels of `output + oc·P` (never past them).
public struct SparsePointwiseOutput {
    /// The tile's first pixel of output channel 0.
    public var output: UnsafeMutablePointer<Float>
    /// The residual at the same position (the output's layout), or nil.
    public var residual: UnsafePointer<Float>?
    /// Floats between consecutive channels of output and residual: P.
    public var channelStride: Int
    /// `[Cout]`.
    public var bias: UnsafePointer<Float>
    public var lower: Float
    public var upper: Float
    public var addLower: Float
    public var addUpper: Float
    public var residualFirst: Bool

    @inlinable
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

/// Units of `Vectors` (16 floats each) per row of a sparse tile, fixed at compile time: 4, 2
/// or 1.
public protocol SparseTileUnits {
    static var count: Int { get }
}

/// 64 pixels: a whole tile.
public enum SparseFourUnits: SparseTileUnits {
    @inlinable public static var count: Int { 4 }
}

/// 32 pixels of a short tile.
public enum SparseTwoUnits: SparseTileUnits {
    @inlinable public static var count: Int { 2 }
}

/// 16 pixels of a short tile.
public enum SparseOneUnit: SparseTileUnits {
    @inlinable public static var count: Int { 1 }
}

/// Computes `tile` with `weights` and finishes it into `out` (last block) or its partial sums.
/// A tile of 49...64 pixels runs on four units; a shorter one (the last of a plane) on two
/// units for each 32 pixels while more than 16 remain and on one unit for the rest. Which
/// units compute a pixel never changes its chain of operations. Reads up to 15 floats past the
/// tile's last pixel of each input (and residual) row; writes only the tile's pixels.
/// Instantiate it with the family's own `KernelVectors` type whose `count` vectors hold 16
/// floats, from a non-generic `@inline(never)` function of the family's module.
@inlinable @inline(__always)
public func sparsePointwiseTile<Vectors: KernelVectors>(
    _ vectors: Vectors.Type, _ tile: SparsePointwiseTile, weights: SparsePointwiseWeights,
    out: SparsePointwiseOutput
) {
    precondition(
        (1...SparsePointwiseTile.width).contains(tile.pixels)
            && (tile.partial != nil || (tile.block == 0 && tile.isLast)),
        "a tile of 1...64 pixels, with partial sums unless it is a single block")
    if tile.pixels > 48 {
        sparsePointwiseUnits(Vectors.self, SparseFourUnits.self, tile, weights: weights, out: out)
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
            sparsePointwiseUnits(Vectors.self, SparseTwoUnits.self, part, weights: weights, out: finish)
            done += 32
        } else {
            sparsePointwiseUnits(Vectors.self, SparseOneUnit.self, part, weights: weights, out: finish)
            done += 16
        }
    }
}

/// The first `Units.count` units of `tile` (`tile.pixels` at most that many units' pixels):
/// `Units.count · Vectors.count` accumulators per output channel, one chain per pixel.
@inlinable @inline(__always)
public func sparsePointwiseUnits<Vectors: KernelVectors, Units: SparseTileUnits>(
    _ vectors: Vectors.Type, _ units: Units.Type, _ tile: SparsePointwiseTile,
    weights: SparsePointwiseWeights, out: SparsePointwiseOutput
) {
    typealias V = Vectors.Vector
    let width = V.scalarCount, two = Vectors.count == 2
    let unit = two ? 2 * width : width
    precondition(unit == 16, "a unit of the sparse tile is 16 floats")
    let n = Units.count
    let values = weights.values, offsets = weights.offsets
    let starts = weights.starts + tile.block * weights.outputChannels
    let input = tile.input
    let lo = Vectors.broadcast(out.lower), hi = Vectors.broadcast(out.upper)
    let addLo = Vectors.broadcast(out.addLower), addHi = Vectors.broadcast(out.addUpper)
    let residualFirst = out.residualFirst
    for oc in tile.channels {
        let slot = tile.partial.map { $0 + (oc - tile.channels.lowerBound) * SparsePointwiseTile.width }
        // Unit u's vector v is `s{u}{v}`: pixels u·16 + v·width ..< + width.
        var s00: V, s01: V, s10: V, s11: V, s20: V, s21: V, s30: V, s31: V
        if tile.block > 0, let slot {
            s00 = loadVector(slot, as: V.self)
            s01 = two ? loadVector(slot + width, as: V.self) : s00
            s10 = n > 1 ? loadVector(slot + unit, as: V.self) : s00
            s11 = n > 1 && two ? loadVector(slot + unit + width, as: V.self) : s00
            s20 = n > 2 ? loadVector(slot + 2 * unit, as: V.self) : s00
            s21 = n > 2 && two ? loadVector(slot + 2 * unit + width, as: V.self) : s00
            s30 = n > 2 ? loadVector(slot + 3 * unit, as: V.self) : s00
            s31 = n > 2 && two ? loadVector(slot + 3 * unit + width, as: V.self) : s00
        } else {
            s00 = Vectors.broadcast(out.bias[oc])
            s01 = s00; s10 = s00; s11 = s00; s20 = s00; s21 = s00; s30 = s00; s31 = s00
        }
        for k in Int(starts[oc])..<Int(starts[oc + 1]) {
            let x = input + Int(offsets[k])
            let w = Vectors.broadcast(values[k])
            s00 = Vectors.multiplyAdd(loadVector(x, as: V.self), w, s00)
            if two { s01 = Vectors.multiplyAdd(loadVector(x + width, as: V.self), w, s01) }
            if n > 1 {
                s10 = Vectors.multiplyAdd(loadVector(x + unit, as: V.self), w, s10)
                if two { s11 = Vectors.multiplyAdd(loadVector(x + unit + width, as: V.self), w, s11) }
            }
            if n > 2 {
                s20 = Vectors.multiplyAdd(loadVector(x + 2 * unit, as: V.self), w, s20)
                if two { s21 = Vectors.multiplyAdd(loadVector(x + 2 * unit + width, as: V.self), w, s21) }
                s30 = Vectors.multiplyAdd(loadVector(x + 3 * unit, as: V.self), w, s30)
                if two { s31 = Vectors.multiplyAdd(loadVector(x + 3 * unit + width, as: V.self), w, s31) }
            }
        }
        if !tile.isLast, let slot {
            storeVector(s00, slot)
            if two { storeVector(s01, slot + width) }
            if n > 1 {
                storeVector(s10, slot + unit)
                if two { storeVector(s11, slot + unit + width) }
            }
            if n > 2 {
                storeVector(s20, slot + 2 * unit)
                if two { storeVector(s21, slot + 2 * unit + width) }
                storeVector(s30, slot + 3 * unit)
                if two { storeVector(s31, slot + 3 * unit + width) }
            }
            continue
        }
        let row = oc * out.channelStride
        let residual = out.residual.map { $0 + row }
        /// The activation's clamp, then the fused ADD of the residual `offset` floats into the row.
        @inline(__always)
        func finish(_ sum: V, _ offset: Int) -> V {
            let value = Vectors.clamp(sum, lower: lo, upper: hi)
            guard let residual else { return value }
            let r = loadVector(residual + offset, as: V.self)
            return Vectors.clamp(residualFirst ? r + value : value + r, lower: addLo, upper: addHi)
        }
        s00 = finish(s00, 0)
        if two { s01 = finish(s01, width) }
        if n > 1 {
            s10 = finish(s10, unit)
            if two { s11 = finish(s11, unit + width) }
        }
        if n > 2 {
            s20 = finish(s20, 2 * unit)
            if two { s21 = finish(s21, 2 * unit + width) }
            s30 = finish(s30, 3 * unit)
            if two { s31 = finish(s31, 3 * unit + width) }
        }
        let output = out.output + row
        if tile.pixels == n * unit {
            storeVector(s00, output)
            if two { storeVector(s01, output + width) }
            if n > 1 {
                storeVector(s10, output + unit)
                if two { storeVector(s11, output + unit + width) }
            }
            if n > 2 {
                storeVector(s20, output + 2 * unit)
                if two { storeVector(s21, output + 2 * unit + width) }
                storeVector(s30, output + 3 * unit)
                if two { storeVector(s31, output + 3 * unit + width) }
            }
            continue
        }
        // A short row: spilled with whole-vector stores and copied by the family's own function
        // (as `gemmTile` stores a partial tile).
        let sums = two ? (s00, s01, s10, s11, s20, s21, s30, s31) : (s00, s10, s20, s30, s00, s00, s00, s00)
        withUnsafeBytes(of: sums) { bytes in
            Vectors.storePartialTile(
                bytes, rowWidth: n * unit, rows: 1, columns: tile.pixels, c: output, cStride: 0)
        }
    }
}

/// Copies the pixels `0 ..< pixels` (1...64) of `channels` input rows (row `c` at
/// `input + c·channelStride`) to `packed`, `SparsePointwiseTile.width` floats per row, so that
/// the tile kernels read aligned, contiguous rows whatever the row length: as many units of 16
/// floats as cover `pixels` (lanes past `pixels` hold whatever follows them in the input).
/// Reads up to 15 floats past the last pixel of a row. Instantiate it as `sparsePointwiseTile`.
@inlinable @inline(__always)
public func packSparsePointwiseTile<Vectors: KernelVectors>(
    _ vectors: Vectors.Type, input: UnsafePointer<Float>, channelStride: Int, channels: Int, pixels: Int,
    packed: UnsafeMutablePointer<Float>
) {
    typealias V = Vectors.Vector
    let width = V.scalarCount
    let floats = (pixels + 15) / 16 * 16
    var source = input, target = packed
    for _ in 0..<channels {
        var j = 0
        while j < floats {
            storeVector(loadVector(source + j, as: V.self), target + j)
            j += width
        }
        source += channelStride
        target += SparsePointwiseTile.width
    }
}

import Tensor

/// The weights of a `SparsePointwiseConv2DCHW` as its kernels read them,
/// built at load time from a filter `W[Cout, Cin]`, either packed for the
/// dense convolution (`PackedGemmWeights`) or stored as compressed rows
/// (`CompressedRowFilter`); both give the same lists for the same filter.
///
/// The input channels are cut into `blockCount` blocks of `blockChannels`
/// (the last may have fewer). The kept weights are the non-zero ones, and
/// every weight of an output channel whose bias is −0 (its sum must start
/// from −0 as the dense kernel's does).
struct SparsePointwiseLists {
    /// How the lists are cut and what an offset means.
    struct Layout {
        /// Cin.
        let inputChannels: Int
        /// Cout.
        let outputChannels: Int
        /// Input channels per block (the last block may have fewer).
        let blockChannels: Int
        let blockCount: Int
        /// P = H·W: the stride of an input channel in the image.
        let pixels: Int
        /// Whether offsets point into a packed tile (`(ic − block's first) · tilePixels`)
        /// rather than into the image (`ic · P`).
        let packsInput: Bool
        /// Floats per input channel of a packed tile.
        let tilePixels: Int

        /// Where the kernel finds input channel `ic` of the block starting at `first`:
        /// `ic · channelStride − blockOffset(first)`.
        @inline(__always)
        func offset(of ic: Int, blockStart first: Int) -> Int32 {
            // ic < Cin, and Cin · P is at most an input's element count (≤ 2^31).
            Int32(truncatingIfNeeded: ic * channelStride - blockOffset(first))
        }

        /// How far apart two input channels' rows are: in a packed tile or in the image.
        var channelStride: Int { packsInput ? tilePixels : pixels }

        /// What `offset(of:blockStart:)` takes off for a block starting at `first`.
        func blockOffset(_ first: Int) -> Int { packsInput ? first * tilePixels : 0 }
    }

    /// The kept weights: block by block, within a block output channel by
    /// output channel, within a channel by ascending input channel; then one
    /// unused 0.
    let values: [Float]
    /// Per kept weight, `layout.offset(of:blockStart:)` of its input channel; then one unused 0.
    let offsets: [Int32]
    /// The kept weights of output channel `oc` in block `b` are
    /// `starts[b·Cout + oc] ..< starts[b·Cout + oc + 1]`.
    let starts: [Int32]
    /// Non-zero weights over `Cout · Cin`.
    let density: Double

    /// The lists of the packed filter `packed`, or nil when more than
    /// `maxDensity` of its weights are non-zero or the kept weights do not fit
    /// in `Int32` offsets.
    ///
    /// Loading a model tries every 1×1 convolution, so these loops see
    /// millions of weights: they have no branch that depends on a weight (a
    /// sparse filter's zeros fall at random). A dense filter is counted only
    /// until it has more non-zeros than `maxDensity · Cout · Cin`.
    init?(packed: PackedGemmWeights, layout: Layout, keepsZeros: [Bool], maxDensity: Double) {
        let cin = layout.inputChannels, cout = layout.outputChannels
        let bound = maxDensity < 1 ? Int((max(0, maxDensity) * Double(cout * cin)).rounded(.up)) : .max
        let nonzeros = packed.nonzeroWeightCount(stoppingAbove: bound)
        let density = Double(nonzeros) / Double(cout * cin)
        guard density <= maxDensity else { return nil }
        var keptCount = nonzeros
        for oc in 0..<cout where keepsZeros[oc] {
            packed.forEachWeight(ofRow: oc, in: 0..<cin) { weight, _ in keptCount += 1 - Self.nonzeroBit(weight) }
        }
        guard keptCount <= Int(Int32.max) else { return nil }
        // Every weight is written at the next free place, which moves on only when the
        // weight is kept.
        self.init(layout: layout, keptCount: keptCount, density: density) { block, oc, write in
            let first = block * layout.blockChannels, end = min(cin, first + layout.blockChannels)
            let keepsAll = keepsZeros[oc] ? 1 : 0
            packed.forEachWeight(ofRow: oc, in: first..<end) { weight, ic in
                write(weight, layout.offset(of: ic, blockStart: first), keepsAll | Self.nonzeroBit(weight))
            }
        }
    }

    /// The lists of `filter` (`[Cout, Cin]`), as `init(packed:…)` gives
    /// them for the same weights: read from the stored values only, except in
    /// output channels that keep their zeros.
    init?(compressedRows filter: CompressedRowFilter, layout: Layout, keepsZeros: [Bool], maxDensity: Double) {
        let cin = layout.inputChannels, cout = layout.outputChannels
        precondition(filter.rows == cout && filter.columns == cin, "the filter is not [Cout, Cin]")
        var nonzeros = 0, keptCount = 0
        filter.values.withUnsafeBufferPointer { values in
            for oc in 0..<cout {
                var rowNonzeros = 0
                for p in Int(filter.segments[oc])..<Int(filter.segments[oc + 1]) {
                    rowNonzeros &+= Self.nonzeroBit(values[p])
                }
                nonzeros += rowNonzeros
                keptCount += keepsZeros[oc] ? cin : rowNonzeros
            }
        }
        let density = Double(nonzeros) / Double(cout * cin)
        guard density <= maxDensity, keptCount <= Int(Int32.max) else { return nil }
        // Where each row's walk stands: its next stored value, block after block.
        var cursors = filter.segments.dropLast().map(Int.init)
        let indices = filter.indices, values = filter.values
        self.init(layout: layout, keptCount: keptCount, density: density) { block, oc, write in
            let first = block * layout.blockChannels, end = min(cin, first + layout.blockChannels)
            let rowEnd = Int(filter.segments[oc + 1])
            var p = cursors[oc]
            indices.withUnsafeBufferPointer { indices in
                values.withUnsafeBufferPointer { values in
                    if keepsZeros[oc] {
                        for ic in first..<end {
                            // Columns ascend within a row: the next stored value is the only candidate.
                            let isStored = p < rowEnd && Int(indices[p]) == ic
                            write(isStored ? values[p] : 0, layout.offset(of: ic, blockStart: first), 1)
                            if isStored { p += 1 }
                        }
                    } else {
                        let stride = layout.channelStride, base = layout.blockOffset(first)
                        while p < rowEnd {
                            let ic = Int(indices[p])
                            guard ic < end else { break }
                            let weight = values[p]
                            write(weight, Int32(truncatingIfNeeded: ic * stride - base), Self.nonzeroBit(weight))
                            p += 1
                        }
                    }
                }
            }
            cursors[oc] = p
        }
    }

    /// Fills the lists of `keptCount` weights: `visit(block, oc, write)` is
    /// called for every block and, within it, every output channel in order,
    /// and calls `write(weight, offset, kept)` for each candidate weight of
    /// that channel in that block in ascending input channel order, `kept`
    /// being 1 when the weight is kept, else 0.
    private init(
        layout: Layout, keptCount: Int, density: Double,
        visit: (_ block: Int, _ oc: Int, _ write: (Float, Int32, Int) -> Void) -> Void
    ) {
        let cout = layout.outputChannels
        // The one more entry at the end takes the writes after the last kept weight, then
        // holds 0 (and no array is empty: an empty array may have no base address).
        var starts = [Int32](repeating: 0, count: layout.blockCount * cout + 1)
        var offsets: [Int32] = []
        let values = [Float](unsafeUninitializedCapacity: keptCount + 1) { values, valuesCount in
            offsets = [Int32](unsafeUninitializedCapacity: keptCount + 1) { offsets, offsetsCount in
                populatePages(of: UnsafeMutableRawBufferPointer(values))
                populatePages(of: UnsafeMutableRawBufferPointer(offsets))
                var next = 0
                for block in 0..<layout.blockCount {
                    for oc in 0..<cout {
                        visit(block, oc) { weight, offset, kept in
                            values[next] = weight
                            offsets[next] = offset
                            // Never past the last entry, even if the count were wrong.
                            next = min(keptCount, next &+ kept)
                        }
                        starts[block * cout + oc + 1] = Int32(truncatingIfNeeded: next)
                    }
                }
                precondition(next == keptCount, "kept \(next) weights, counted \(keptCount)")
                values[keptCount] = 0
                offsets[keptCount] = 0
                (valuesCount, offsetsCount) = (keptCount + 1, keptCount + 1)
            }
        }
        self.values = values
        self.offsets = offsets
        self.starts = starts
        self.density = density
    }

    /// 1 when `weight != 0`, else 0, without a branch: whether its bits without the sign
    /// are not all zero (−0 is zero, NaN is not). A conditional expression compiles to a
    /// branch here, because the weight comes from memory.
    @inline(__always)
    static func nonzeroBit(_ weight: Float) -> Int {
        PackedGemmWeights.isNonzero(magnitudeBits: weight.bitPattern << 1)
    }
}

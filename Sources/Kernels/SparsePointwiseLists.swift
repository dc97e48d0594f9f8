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

        /// Entries of `starts`: one per block and output channel, then one more.
        var startCount: Int { blockCount * outputChannels + 1 }
    }

    /// The lists, in one buffer of 4-byte words (a weight store keeps it as
    /// it is, see `stored(layout:maxDensity:build:)`): the kept weight count
    /// K, the non-zero count, `starts` (`layout.startCount` Int32), `values`
    /// (K + 1 floats), `offsets` (K + 1 Int32).
    let storage: AlignedBuffer
    /// K: the kept weights.
    let keptCount: Int
    /// Non-zero weights over `Cout · Cin`.
    let density: Double
    /// Where `starts` begins in `storage`, in words.
    private static let headerWords = 2
    private let startCount: Int

    /// Words of storage for `startCount` starts and `keptCount` kept weights.
    private static func wordCount(startCount: Int, keptCount: Int) -> Int {
        headerWords + startCount + 2 * (keptCount + 1)
    }

    /// Whether lists of `keptCount` weights fit in a buffer (at most
    /// `TensorShape.maxElements` = 2^31 words, so K and every start, at most
    /// half that, fit in an Int32).
    private static func fitsStorage(keptCount: Int, layout: Layout) -> Bool {
        wordCount(startCount: layout.startCount, keptCount: keptCount) <= TensorShape.maxElements
    }

    /// Calls `body` with the lists as the fast kernel reads them:
    /// - `values`: the kept weights, block by block, within a block output
    ///   channel by output channel, within a channel by ascending input
    ///   channel; then one unused 0 (K + 1 floats);
    /// - `offsets`: per kept weight, `layout.offset(of:blockStart:)` of its
    ///   input channel; then one unused 0 (K + 1);
    /// - `starts`: the kept weights of output channel `oc` in block `b` are
    ///   `starts[b·Cout + oc] ..< starts[b·Cout + oc + 1]`.
    func withLists<R>(
        _ body: (_ values: UnsafePointer<Float>, _ offsets: UnsafePointer<Int32>, _ starts: UnsafePointer<Int32>) -> R
    ) -> R {
        let base = storage.baseAddress
        let values = base + Self.headerWords + startCount
        return (base + Self.headerWords).withMemoryRebound(to: Int32.self, capacity: startCount) { starts in
            (values + keptCount + 1).withMemoryRebound(to: Int32.self, capacity: keptCount + 1) { offsets in
                body(values, offsets, starts)
            }
        }
    }

    /// Copies of the three lists (`withLists`), for inspection.
    var copies: (values: [Float], offsets: [Int32], starts: [Int32]) {
        withLists { values, offsets, starts in
            (Array(UnsafeBufferPointer(start: values, count: keptCount + 1)),
             Array(UnsafeBufferPointer(start: offsets, count: keptCount + 1)),
             Array(UnsafeBufferPointer(start: starts, count: startCount)))
        }
    }

    /// The lists of a convolution cut as `layout` says: an earlier load's,
    /// where the current weight-store scope (`PackedWeightStore`) holds a
    /// buffer of them that `init(stored:layout:maxDensity:)` accepts; else
    /// those `build` makes (nil: the filter is too dense), which the store
    /// then keeps.
    static func stored(
        layout: Layout, maxDensity: Double, build: () -> SparsePointwiseLists?
    ) -> SparsePointwiseLists? {
        PackedWeightStore.weights(
            reusing: { SparsePointwiseLists(stored: $0, layout: layout, maxDensity: maxDensity) },
            packing: { build().map { ($0, $0.storage) } })
    }

    /// The lists held in `stored` (an earlier load's storage), or nil unless
    /// they are lists of this layout that the kernel can run on without
    /// reading outside its input: the counts agree with the buffer's size and
    /// `maxDensity`, `starts` climbs from 0 to K, and every offset names an
    /// input channel of its block. (The weight values are taken as they are.)
    init?(stored: AlignedBuffer, layout: Layout, maxDensity: Double) {
        let words = stored.baseAddress
        let (kept, nonzeros) = words.withMemoryRebound(to: Int32.self, capacity: Self.headerWords) {
            (Int($0[0]), Int($0[1]))
        }
        let cin = layout.inputChannels, cout = layout.outputChannels
        let startCount = layout.startCount
        guard kept >= 0, (0...kept).contains(nonzeros),
              stored.count == Self.wordCount(startCount: startCount, keptCount: kept)
        else { return nil }
        let density = Double(nonzeros) / Double(cout * cin)
        guard density <= maxDensity else { return nil }
        self.storage = stored
        self.keptCount = kept
        self.startCount = startCount
        self.density = density
        let valid = withLists { _, offsets, starts in
            guard starts[0] == 0, Int(starts[startCount - 1]) == kept else { return false }
            // Reductions rather than early exits: loops without branches (offsets run to
            // hundreds of thousands).
            var smallestStep = 0
            for entry in 1..<startCount { smallestStep = min(smallestStep, Int(starts[entry]) - Int(starts[entry - 1])) }
            guard smallestStep >= 0 else { return false }
            for block in 0..<layout.blockCount {
                let first = block * layout.blockChannels, end = min(cin, first + layout.blockChannels)
                // Offset + blockOffset(first) = ic · channelStride for some ic in first..<end:
                // bounds checked, the multiple not needed (any offset between reads inside).
                var lowest = layout.offset(of: first, blockStart: first)
                var highest = layout.offset(of: end - 1, blockStart: first)
                let bounds = (lowest, highest)
                // A while loop with wrapping steps: one exit, which the compiler vectorises.
                var k = Int(starts[block * cout])
                let blockEnd = Int(starts[(block + 1) * cout])
                while k < blockEnd {
                    lowest = min(lowest, offsets[k])
                    highest = max(highest, offsets[k])
                    k &+= 1
                }
                guard (lowest, highest) == bounds else { return false }
            }
            return true
        }
        guard valid else { return nil }
    }

    /// The lists of the packed filter `packed`, or nil when more than
    /// `maxDensity` of its weights are non-zero or the lists would not fit in
    /// a buffer.
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
        guard Self.fitsStorage(keptCount: keptCount, layout: layout) else { return nil }
        // Every weight is written at the next free place, which moves on only when the
        // weight is kept.
        self.init(layout: layout, keptCount: keptCount, nonzeros: nonzeros) { block, oc, write in
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
        let lists = filter.segments.withElements { segments in
            filter.indices.withElements { indices in
                filter.storedValues().withUnsafeBufferPointer { values in
                    SparsePointwiseLists(
                        segments: segments, indices: indices, values: values, layout: layout, keepsZeros: keepsZeros,
                        maxDensity: maxDensity)
                }
            }
        }
        guard let lists else { return nil }
        self = lists
    }

    /// `init(compressedRows:…)` of the filter whose rows are `segments`,
    /// `indices` and `values` (`CompressedRowFilter`).
    private init?(
        segments: IndexList.Elements, indices: IndexList.Elements, values: UnsafeBufferPointer<Float>, layout: Layout,
        keepsZeros: [Bool], maxDensity: Double
    ) {
        let cin = layout.inputChannels, cout = layout.outputChannels
        var nonzeros = 0, keptCount = 0
        for oc in 0..<cout {
            var rowNonzeros = 0
            for p in Int(segments[oc])..<Int(segments[oc + 1]) {
                rowNonzeros &+= Self.nonzeroBit(values[p])
            }
            nonzeros += rowNonzeros
            keptCount += keepsZeros[oc] ? cin : rowNonzeros
        }
        let density = Double(nonzeros) / Double(cout * cin)
        guard density <= maxDensity, Self.fitsStorage(keptCount: keptCount, layout: layout) else { return nil }
        // Where each row's walk stands: its next stored value, block after block.
        var cursors = (0..<cout).map { Int(segments[$0]) }
        self.init(layout: layout, keptCount: keptCount, nonzeros: nonzeros) { block, oc, write in
            let first = block * layout.blockChannels, end = min(cin, first + layout.blockChannels)
            let rowEnd = Int(segments[oc + 1])
            var p = cursors[oc]
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
            cursors[oc] = p
        }
    }

    /// Fills the lists of `keptCount` weights, `nonzeros` of them not zero:
    /// `visit(block, oc, write)` is called for every block and, within it,
    /// every output channel in order, and calls `write(weight, offset, kept)`
    /// for each candidate weight of that channel in that block in ascending
    /// input channel order, `kept` being 1 when the weight is kept, else 0.
    private init(
        layout: Layout, keptCount: Int, nonzeros: Int,
        visit: (_ block: Int, _ oc: Int, _ write: (Float, Int32, Int) -> Void) -> Void
    ) {
        let cout = layout.outputChannels
        // Every page is written: resident at once rather than a fault at a time.
        self.storage = AlignedBuffer(
            count: Self.wordCount(startCount: layout.startCount, keptCount: keptCount), populated: true)
        self.keptCount = keptCount
        self.startCount = layout.startCount
        self.density = Double(nonzeros) / Double(layout.outputChannels * layout.inputChannels)
        storage.baseAddress.withMemoryRebound(to: Int32.self, capacity: Self.headerWords) { header in
            // Both fit (`fitsStorage`), nonzeros ≤ keptCount.
            header[0] = Int32(keptCount)
            header[1] = Int32(nonzeros)
        }
        withLists { values, offsets, starts in
            // The storage is this init's own, fresh and writable.
            let values = UnsafeMutablePointer(mutating: values), offsets = UnsafeMutablePointer(mutating: offsets)
            let starts = UnsafeMutablePointer(mutating: starts)
            // The one more entry at the end takes the writes after the last kept weight,
            // then holds 0; starts[0] is 0 (fresh storage is zeroed).
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
        }
    }

    /// 1 when `weight != 0`, else 0, without a branch: whether its bits without the sign
    /// are not all zero (−0 is zero, NaN is not). A conditional expression compiles to a
    /// branch here, because the weight comes from memory.
    @inline(__always)
    static func nonzeroBit(_ weight: Float) -> Int {
        PackedGemmWeights.isNonzero(magnitudeBits: weight.bitPattern << 1)
    }
}

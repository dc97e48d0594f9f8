import KernelTemplates
import Synchronization

/// How `gemmF32` cuts the output into tiles: blocks of rows (whole
/// microkernel tiles of 6 rows, 8 for the AVX-512 kernels, or, once balanced,
/// even to the row; sized so that a block's rows of A
/// and C stay in L2 while every panel passes over them; for float16 panels,
/// twice as many floats of A alone, so that each panel, widened once per
/// block, serves enough rows to make the widening cheap: 256 KiB of A and one
/// widened panel stay within a 512 KiB L2) times groups of panels (more than
/// one group only when there are too few row blocks to keep every thread
/// busy); at 2 to 8 threads, the blocks and groups then evened out between
/// the threads (`balanced`, once per weights, rows and thread count:
/// `GemmTilingCache`). The tiling never changes what is computed, only who
/// computes it.
struct GemmTiling {
    /// Floats of A and C rows kept hot per block: 128 KiB.
    static let rowBlockFloats = 32 * 1024
    /// Floats of A rows kept hot per block with float16 panels: 256 KiB.
    static let float16RowBlockFloats = 64 * 1024
    /// Tiles wanted per thread, so that uneven tiles still balance.
    static let tilesPerThread = 4

    let rows: Int
    /// Rows of the family's full microkernel tile.
    let tileRows: Int
    private(set) var rowBlockCount: Int
    /// Whether blocks split the rows evenly, to the row (a tiling `balanced` chose), rather than
    /// in whole microkernel tiles, the last one partial.
    private(set) var cutsRowsEvenly = false
    let panelCount: Int
    private(set) var panelGroupCount: Int

    init(rows: Int, weights: PackedGemmWeights, threadCount: Int) {
        // Rows per microkernel call of the weights' family.
        let mr = weights.microkernels.gemmTileRows
        self.rows = rows
        tileRows = mr
        panelCount = weights.columnBlockCount
        let rowTiles = (rows + mr - 1) / mr
        // K and N are each at most TensorShape.maxElements: the sum cannot overflow.
        let float16 = weights.panelPrecision == .float16
        let rowFloats = float16 ? weights.inputChannels : weights.inputChannels + weights.outputChannels
        let blockFloats = float16 ? Self.float16RowBlockFloats : Self.rowBlockFloats
        let maxTilesPerBlock = max(1, blockFloats / rowFloats / mr)
        var blocks = (rowTiles + maxTilesPerBlock - 1) / maxTilesPerBlock
        var groups = 1
        let threads = usefulThreadCount(
            threadCount, multiplyAdds: rows, weights.inputChannels, weights.outputChannels)
        let wanted = threads > 1 ? threads * Self.tilesPerThread : 1
        let fewestBlocks = blocks
        if blocks < wanted {
            groups = max(1, min(panelCount, (wanted + blocks - 1) / max(1, blocks)))
            blocks = min(rowTiles, max(blocks, (wanted + groups - 1) / groups))
        }
        rowBlockCount = min(blocks, rowTiles)
        panelGroupCount = groups
        // Balance where there is a choice: at most 8 threads, and fewer blocks than twice the
        // tiles wanted already (the L2 bound alone can ask for hundreds on a large image).
        guard (2...Self.maxBalancedThreads).contains(threads), fewestBlocks < 2 * wanted else { return }
        cutsRowsEvenly = true
        if let split = weights.tilingCache.split(rows: rows, threads: threads) {
            setSplit(blocks: split.blocks, groups: split.groups)
        } else {
            let split = balanced(
                weights: weights, threads: threads, first: (blocks, groups), fewestBlocks: fewestBlocks,
                wanted: wanted)
            setSplit(blocks: split.blocks, groups: split.groups)
            weights.tilingCache.store(rows: rows, threads: threads, blocks: split.blocks, groups: split.groups)
        }
    }

    /// Cuts the rows into `blocks` blocks (fewer where the tiles run out first) and the panels
    /// into `groups` groups.
    private mutating func setSplit(blocks: Int, groups: Int) {
        rowBlockCount = min(blocks, rowTiles)
        panelGroupCount = groups
    }

    /// Microkernel tiles the rows take, the last one partial.
    private var rowTiles: Int { (rows + tileRows - 1) / tileRows }

    /// Thread counts whose tilings `balanced` evens out (its estimate plays out every thread).
    static let maxBalancedThreads = SIMD8<Int>.scalarCount

    /// The blocks and groups, among those with at least `fewestBlocks` blocks (the L2 bound)
    /// and at most twice `wanted` tiles, whose slowest thread `weighedFinish` expects to
    /// finish first, where that beats the `first` choice by more than 2 %; else `first`. At two
    /// threads on a Zen 5, hand_landmark_full's 7 × 7 × 192 layers take one block × 2 groups of
    /// 96 channels (rows split 24 and 25 would leave one thread a partial tile), its 14 × 14
    /// expansions two blocks of 98 rows, its 14 × 14 projections from 672 channels four blocks
    /// of 49 (a float16 block holds at most 97 rows of 672: `float16RowBlockFloats`).
    private func balanced(
        weights: PackedGemmWeights, threads: Int, first: (blocks: Int, groups: Int), fewestBlocks: Int, wanted: Int
    ) -> (blocks: Int, groups: Int) {
        let firstFinish = weighedFinish(weights: weights, threads: threads)
        var best = (finish: firstFinish - firstFinish / 50, split: first)
        for groups in 1...max(1, min(panelCount, 2 * wanted)) {
            var blocks = max(1, fewestBlocks)
            while blocks <= rowTiles && blocks * groups <= 2 * wanted {
                var candidate = self
                candidate.setSplit(blocks: blocks, groups: groups)
                if candidate.tileCount >= threads {
                    let finish = candidate.weighedFinish(weights: weights, threads: threads)
                    if finish < best.finish { best = (finish, (blocks, groups)) }
                }
                blocks += 1
            }
        }
        return best.split
    }

    /// `estimatedFinish`, a quarter more for a split into panel groups. Threads that split rows
    /// each read only their rows of A, mostly written on the same core by the layer before, and
    /// write whole rows of C, which the next layer reads there; threads that split panels each
    /// read all of A and write part of every row, so rows cross between cores twice. On a Zen 5
    /// (AVX-512) at two threads, hand_landmark_full took 5 % less time with its 14 × 14 layers
    /// split by rows (`Benchmarks/JOURNAL.md`, "Rows before panels", where a tenth more was
    /// enough); on a Xeon (AVX-512) the small maps whose panel groups come out uneven went
    /// faster by rows too: hand_landmark_lite's 7 × 7 projections to 112 channels (64 and 48
    /// columns a thread) 17–20 %, pose_detection's 7 × 7 × 72 head (32 and 40 columns) 25 %,
    /// pose_landmark_full's 4 × 4 × 288 layers (9 panels in 8 groups) 2–7 % ("Uneven panel
    /// groups", same file).
    private func weighedFinish(weights: PackedGemmWeights, threads: Int) -> Int {
        let finish = estimatedFinish(weights: weights, threads: threads)
        return panelGroupCount > 1 ? finish + finish / 4 : finish
    }

    /// When the slowest of `threads` threads (at most `maxBalancedThreads`) would finish the
    /// tiles, in rows computed × columns, counting each tile 8 rows more for float16 panels
    /// (widening its panels) and 2 more for float32 ones: `WorkerPool`'s order played out, the
    /// tiles cut into `ParallelRunner`'s chunks, each thread claiming the chunks of its own
    /// segment first, then those left in the others' in thread order, the thread free first
    /// claiming next.
    private func estimatedFinish(weights: PackedGemmWeights, threads: Int) -> Int {
        let kernels = weights.microkernels
        let overheadRows = weights.panelPrecision == .float16 ? 8 : 2
        func cost(_ tile: Int) -> Int {
            let (tileRows, panels) = self.tile(tile)
            let computed = GemmRowTiles(
                rows: tileRows.count, tileRows: kernels.gemmTileRows, shortTileRows: kernels.gemmShortTileRows
            ).rowsComputed
            let columns = weights.usesDotProducts
                ? panels.count
                : (panels.upperBound == panelCount ? weights.outputChannels : weights.column(ofPanel: panels.upperBound))
                    - weights.column(ofPanel: panels.lowerBound)
            return (computed + overheadRows) * columns
        }
        let chunks = ParallelChunks(
            count: tileCount, chunkCount: max(1, min(tileCount, threads * ParallelRunner.chunksPerThread)))
        // Per thread: the next chunk of its segment, and when it is free.
        var next = SIMD8<Int>(repeating: 0), free = SIMD8<Int>(repeating: 0)
        var done = SIMD8<Int>(repeating: 1)
        for thread in 0..<threads {
            next[thread] = chunks.segment(of: thread, threadCount: threads).lowerBound
            done[thread] = 0
        }
        while true {
            var thread = -1
            for t in 0..<threads where done[t] == 0 && (thread < 0 || free[t] < free[thread]) { thread = t }
            guard thread >= 0 else { break }
            done[thread] = 1
            for offset in 0..<threads {
                let owner = (thread + offset) % threads
                guard next[owner] < chunks.segment(of: owner, threadCount: threads).upperBound else { continue }
                for tile in chunks.items(next[owner]) { free[thread] += cost(tile) }
                next[owner] += 1
                done[thread] = 0
                break
            }
        }
        return free.max()
    }

    var tileCount: Int { rowBlockCount * panelGroupCount }

    /// Rows and panels of tile `index`; tiles are ordered row block first so
    /// that each thread's tiles share rows of A.
    func tile(_ index: Int) -> (rows: Range<Int>, panels: Range<Int>) {
        let block = index / panelGroupCount, group = index % panelGroupCount
        // Rows and block counts are tensor sizes: the products do not overflow.
        func start(_ block: Int) -> Int {
            if cutsRowsEvenly { return rows * block / rowBlockCount }
            return min(rows, rowTiles * block / rowBlockCount * tileRows)
        }
        let rowStart = start(block), rowEnd = start(block + 1)
        let panelStart = panelCount * group / panelGroupCount
        let panelEnd = panelCount * (group + 1) / panelGroupCount
        return (rowStart..<rowEnd, panelStart..<panelEnd)
    }
}

/// The blocks and groups `GemmTiling.balanced` chose for one set of weights, for the rows and
/// thread count of the call that asked: a layer is invoked with the same ones again and
/// again, and the choice plays out dozens of tilings. One entry, in one atomic word (rows below
/// 2^28, at most 63 threads, 255 blocks and 255 groups; other calls are not remembered); an
/// interpreter running the same weights at another thread count replaces it.
final class GemmTilingCache: Sendable {
    /// Bit 63: set; bits 0–27: rows; 28–33: threads; 34–41: blocks; 42–49: groups.
    private let entry = Atomic<UInt64>(0)

    /// The blocks and groups stored for `rows` and `threads`, or nil.
    func split(rows: Int, threads: Int) -> (blocks: Int, groups: Int)? {
        guard let key = Self.key(rows: rows, threads: threads) else { return nil }
        let value = entry.load(ordering: .relaxed)
        guard value & Self.keyMask == key else { return nil }
        return (Int(value >> 34 & 0xFF), Int(value >> 42 & 0xFF))
    }

    /// Remembers `blocks` and `groups` for `rows` and `threads` where they fit the word.
    func store(rows: Int, threads: Int, blocks: Int, groups: Int) {
        guard let key = Self.key(rows: rows, threads: threads), (1...255).contains(blocks),
              (1...255).contains(groups) else { return }
        entry.store(key | UInt64(blocks) << 34 | UInt64(groups) << 42, ordering: .relaxed)
    }

    private static let keyMask: UInt64 = 1 << 63 | (1 << 34 - 1)

    private static func key(rows: Int, threads: Int) -> UInt64? {
        guard (0..<(1 << 28)).contains(rows), (1...63).contains(threads) else { return nil }
        return 1 << 63 | UInt64(rows) | UInt64(threads) << 28
    }
}

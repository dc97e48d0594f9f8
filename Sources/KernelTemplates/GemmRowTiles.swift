// How the GEMM templates cut a block's rows into register tiles. Only which tile computes a
// row depends on it, never a row's value (`gemmTile`).

/// The tiles of a block of rows: tiles of `tileRows` rows, then tiles of `shortTileRows` rows,
/// as many short ones as make the tiles cover the rows exactly (the fewest such: AVX2's 6- and
/// 5-row tiles cover a 7 × 7 map's 49 rows as 4 × 6 + 5 × 5). Where no mix does, tiles of
/// `tileRows` rows and a last partial one, which takes the short tile when its rows fit in it.
public struct GemmRowTiles: Sendable {
    /// Whole tiles of `tileRows` rows, first.
    public let tallTiles: Int
    /// Whole tiles of `shortTileRows` rows, after them.
    public let shortTiles: Int
    /// Rows of a last partial tile (0 for none): on the short tile when they fit it
    /// (`partialUsesShortTile`), else on the tall one.
    public let partialRows: Int
    public let tileRows: Int
    public let shortTileRows: Int

    /// - Parameters:
    ///   - rows: rows of the block, at least 0.
    ///   - tileRows: rows of the family's tall tile, at least 1.
    ///   - shortTileRows: rows of its short tile, 1...`tileRows` (equal: no short tile).
    @inlinable
    public init(rows: Int, tileRows: Int, shortTileRows: Int) {
        self.tileRows = tileRows
        self.shortTileRows = shortTileRows
        if shortTileRows < tileRows {
            // A mix with `tileRows` or more short tiles has one with fewer.
            for count in 0..<min(tileRows, rows / shortTileRows + 1)
            where (rows - shortTileRows * count) % tileRows == 0 {
                tallTiles = (rows - shortTileRows * count) / tileRows
                shortTiles = count
                partialRows = 0
                return
            }
        }
        tallTiles = rows / tileRows
        shortTiles = 0
        partialRows = rows % tileRows
    }

    /// Whether the last partial tile runs on the short tile.
    @inlinable
    public var partialUsesShortTile: Bool { partialRows <= shortTileRows }

    /// Rows the tiles compute, counting the ones a partial tile computes and drops.
    public var rowsComputed: Int {
        let partial = partialRows == 0 ? 0 : partialUsesShortTile ? shortTileRows : tileRows
        return tallTiles * tileRows + shortTiles * shortTileRows + partial
    }

    /// Calls `tall(row, rows)` for each tile on the tall tile and `short(row, rows)` for each
    /// on the short one, in the order of their rows (`rows` is the tile's, fewer for a partial
    /// one).
    @inlinable @inline(__always)
    public func forEachTile(tall: (Int, Int) -> Void, short: (Int, Int) -> Void) {
        var row = 0
        for _ in 0..<tallTiles {
            tall(row, tileRows)
            row += tileRows
        }
        for _ in 0..<shortTiles {
            short(row, shortTileRows)
            row += shortTileRows
        }
        if partialRows > 0 {
            if partialUsesShortTile { short(row, partialRows) } else { tall(row, partialRows) }
        }
    }
}

/// Row 0 … 7 of a GEMM tile of `rows` (1...8) rows of A, `stride` floats apart from `a`: rows
/// past `rows` repeat the last one's pointer, so that a tile of any row count computes them from
/// real data (and drops them) without a branch in its k loop.
@inlinable @inline(__always)
public func gemmTileRowPointers(_ a: UnsafePointer<Float>, stride: Int, rows: Int) -> (
    UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>,
    UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>
) {
    let a1 = rows > 1 ? a + stride : a
    let a2 = rows > 2 ? a1 + stride : a1
    let a3 = rows > 3 ? a2 + stride : a2
    let a4 = rows > 4 ? a3 + stride : a3
    let a5 = rows > 5 ? a4 + stride : a4
    let a6 = rows > 6 ? a5 + stride : a5
    let a7 = rows > 7 ? a6 + stride : a6
    return (a, a1, a2, a3, a4, a5, a6, a7)
}

import Tensor

/// Consistency rules for a sparse tensor's `SparsityParameters` against its dense shape.
enum SparsityRules {
    /// Checks the sparsity description of a tensor of dense `shape` and returns the number of
    /// values it stores.
    ///
    /// For rank `n` and `k` block dimensions: `traversalOrder` is a permutation of `0..<n`
    /// followed by one of `n..<n+k`; `blockMap` maps each block dimension to a distinct dense
    /// dimension it divides evenly; there is one `DimensionMetadata` per traversed dimension.
    /// Walking the levels in traversal order with `count` elements so far (initially 1): a dense
    /// level must record the level's size and multiplies `count` by it; a CSR level needs
    /// `count + 1` non-decreasing segments starting at 0 whose last value is at most the number
    /// of indices, every index below the level's size, and sets `count` to that last value.
    static func valueCount(
        shape: [Int32], traversalOrder: [Int32], blockMap: [Int32], dimensions: [DimensionMetadata], where what: @autoclosure () -> String
    ) throws -> Int {
        func fail(_ message: String) -> ModelError { .invalidSparsity(what: "\(what()): \(message)") }

        let rank = shape.count
        let blockCount = blockMap.count
        // Both are vector lengths below 2^32: their sum is below 2^33.
        let levels = rank + blockCount
        guard traversalOrder.count == levels else {
            throw fail("traversal_order has \(traversalOrder.count) entries, expected rank \(rank) + \(blockCount) block dimensions")
        }
        guard dimensions.count == levels else {
            throw fail("dim_metadata has \(dimensions.count) entries but traversal_order has \(levels)")
        }

        var seen = [Bool](repeating: false, count: levels)
        for (level, entry) in traversalOrder.enumerated() {
            let dimension = Int(entry)
            guard dimension >= 0, dimension < levels, !seen[dimension], (level < rank) == (dimension < rank) else {
                let blocks = blockCount == 0 ? "" : " followed by one of \(rank)..<\(levels)"
                throw fail("traversal_order \(ShapeRules.describe(traversalOrder)) is not a permutation of 0..<\(rank)\(blocks)")
            }
            seen[dimension] = true
        }

        var blocked = [Bool](repeating: false, count: rank)
        var blockSizes: [Int] = []
        for (block, entry) in blockMap.enumerated() {
            let dimension = Int(entry)
            guard dimension >= 0, dimension < rank, !blocked[dimension] else {
                throw fail("block_map \(ShapeRules.describe(blockMap)) must name distinct dimensions below rank \(rank)")
            }
            blocked[dimension] = true
            // rank + block < levels < 2^33; compared as Int, so no narrowing.
            guard let level = traversalOrder.firstIndex(where: { Int($0) == rank + block }) else {
                throw fail("block dimension \(rank + block) is missing from traversal_order")
            }
            let metadata = dimensions[level]
            let size = Int(metadata.denseSize)
            guard metadata.format == .dense, size >= 1, Int(shape[dimension]) % size == 0 else {
                throw fail(
                    "block dimension \(rank + block) must be dense with a dense_size >= 1 dividing dimension \(dimension) (\(shape[dimension])), got dense_size \(metadata.denseSize)")
            }
            blockSizes.append(size)
        }

        var count = 1
        for (level, metadata) in dimensions.enumerated() {
            let dimension = Int(traversalOrder[level])
            let size: Int
            if dimension < rank {
                let block = blockMap.firstIndex(of: Int32(dimension)).map { blockSizes[$0] } ?? 1
                size = Int(shape[dimension]) / block
            } else {
                size = blockSizes[dimension - rank]
            }
            switch metadata.format {
            case .dense:
                guard Int(metadata.denseSize) == size else {
                    throw fail("dimension \(level) is dense with dense_size \(metadata.denseSize) but has size \(size)")
                }
                // count < 2^31 (checked after each level) and size < 2^31: the product is < 2^62.
                count &*= size
            case .sparseCSR:
                let segments = metadata.arraySegments
                let indices = metadata.arrayIndices
                // count < 2^31, so count + 1 cannot overflow.
                guard segments.count == count + 1 else {
                    throw fail("dimension \(level) has \(segments.count) array_segments, expected \(count + 1)")
                }
                let first = segments[0]
                guard first == 0 else {
                    throw fail("dimension \(level) array_segments start at \(first), not 0")
                }
                if let position = segments.firstDecrease() {
                    throw fail(
                        "dimension \(level) array_segments decrease at entry \(position) (\(segments[position - 1]) -> \(segments[position]))")
                }
                let last = Int(segments[segments.count - 1])
                guard last <= indices.count else {
                    throw fail("dimension \(level) array_segments end at \(last) but there are only \(indices.count) array_indices")
                }
                if let bad = indices.firstIndex(outside: 0..<size) {
                    throw fail("dimension \(level) array_indices[\(bad)] is \(indices[bad]), outside 0..<\(size)")
                }
                count = last
            }
            guard count < ShapeRules.elementCountLimit else {
                throw fail("stores 2^31 or more values")
            }
        }
        return count
    }
}

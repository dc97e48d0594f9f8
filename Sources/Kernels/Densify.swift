import Tensor

/// How a TFLite sparse constant stores its non-zero values (TFLite's
/// `SparsityParameters`), in terms of the dense tensor it stands for.
///
/// The dense tensor has rank n (`denseShape`). A block-sparse tensor with a
/// k-dimensional block (0 ≤ k ≤ n) is viewed as n + k dimensions: dimension
/// `d < n` counts blocks along original dimension `d`, and dimension `n + j`
/// is the position inside block dimension j, which subdivides original
/// dimension `blockMap[j]`. Without blocks (k = 0) these are just the n
/// original dimensions.
///
/// The values are stored by walking those n + k dimensions in
/// `traversalOrder` (outermost first); `dimensions[level]` describes the
/// level-th dimension of that walk, either fully (`dense`) or by listing only
/// the indices present under each position of the enclosing levels
/// (`sparseCSR`).
public struct SparseTensorDescription: Sendable, Hashable {
    /// How one level of the traversal is stored.
    public enum Dimension: Sendable, Hashable {
        /// Every index `0..<size` is present.
        case dense(size: Int)
        /// Compressed: for the p-th position of the enclosing levels (counted
        /// in traversal order), the present indices are
        /// `indices[segments[p]..<segments[p + 1]]`.
        case sparseCSR(segments: IndexList, indices: IndexList)
    }

    /// Shape of the dense tensor, outermost first (n dimensions).
    public var denseShape: [Int]
    /// The n + k dimensions in storage order: the first n a permutation of
    /// `0..<n`, the last k a permutation of `n..<n + k`.
    public var traversalOrder: [Int]
    /// For each block dimension j, the original dimension it subdivides
    /// (strictly increasing; empty when not block-sparse).
    public var blockMap: [Int]
    /// Storage of each traversal level (n + k entries). A block dimension's
    /// level must be dense; its size is the block size.
    public var dimensions: [Dimension]

    public init(denseShape: [Int], traversalOrder: [Int], blockMap: [Int] = [], dimensions: [Dimension]) {
        self.denseShape = denseShape
        self.traversalOrder = traversalOrder
        self.blockMap = blockMap
        self.dimensions = dimensions
    }
}

/// DENSIFY: rebuilds the dense float32 tensor a TFLite sparse constant stands
/// for. Only load-time folding is supported (the op's input is always a
/// constant), so this is a function rather than a kernel.
public enum Densify {
    /// The most elements a densified tensor may have (256 MiB of float32).
    public static let maxDenseElements = 1 << 26

    /// Expands `values` (the stored non-zeros, in traversal order) into a
    /// row-major tensor of shape `description.denseShape`, zeros elsewhere,
    /// placing them as TFLite's sparsity `FormatConverter` does.
    ///
    /// Throws a `KernelError` if the description is inconsistent (see
    /// `SparseTensorLayout.init(_:valueCount:)`) or stores another number of
    /// values than `values.count`.
    public static func densify(values: [Float], description: SparseTensorDescription) throws -> [Float] {
        densify(values: values, layout: try SparseTensorLayout(description, valueCount: values.count))
    }

    /// `densify(values:description:)` with a description checked before:
    /// `values` must hold `layout.storedCount` values.
    public static func densify(values: [Float], layout: SparseTensorLayout) -> [Float] {
        precondition(values.count == layout.storedCount, "\(values.count) values for \(layout.storedCount) stored positions")
        return [Float](unsafeUninitializedCapacity: layout.denseCount) { dense, initialized in
            dense.initialize(repeating: 0)
            values.withUnsafeBufferPointer { values in
                place(values, into: dense, layout: layout)
            }
            initialized = layout.denseCount
        }
    }

    /// Writes `values` where `layout` places them in `dense` (zeroed, checked to fit).
    private static func place(
        _ values: UnsafeBufferPointer<Float>, into dense: UnsafeMutableBufferPointer<Float>, layout: SparseTensorLayout
    ) {
        let description = layout.description
        var next = 0
        let last = description.dimensions.count - 1
        // Walks level `level` under storage position `position` of the
        // enclosing levels; `offset` is the dense offset accumulated so far.
        // The last level places its values itself, without a call per value.
        func visit(level: Int, position: Int, offset: Int) {
            let step = layout.denseStrides[level]
            switch description.dimensions[level] {
            case .dense(let size) where level == last:
                for i in 0..<size { dense[offset + i * step] = values[next + i] }
                next += size
            case .dense(let size):
                for i in 0..<size {
                    visit(level: level + 1, position: position * size + i, offset: offset + i * step)
                }
            case .sparseCSR(let segments, let indices) where level == last:
                segments.withElements { segments in
                    indices.withElements { indices in
                        for p in Int(segments[position])..<Int(segments[position + 1]) {
                            dense[offset + Int(indices[p]) * step] = values[next]
                            next += 1
                        }
                    }
                }
            case .sparseCSR(let segments, let indices):
                let range = segments.withElements { Int($0[position])..<Int($0[position + 1]) }
                for p in range {
                    visit(level: level + 1, position: p, offset: offset + indices.withElements { Int($0[p]) } * step)
                }
            }
        }
        visit(level: 0, position: 0, offset: 0)
    }
}

/// A `SparseTensorDescription` checked to store a given number of values,
/// with the dense stride of each traversal level: everything `densify`
/// relies on, checked once (a model's loader checks each sparse constant
/// when it reads the graph and densifies it later).
public struct SparseTensorLayout: Sendable {
    /// The checked description.
    public let description: SparseTensorDescription
    /// Element count of the dense tensor.
    public let denseCount: Int
    /// Number of stored values the description implies.
    public let storedCount: Int
    /// Per traversal level, how far one step along it moves in the dense
    /// row-major tensor.
    let denseStrides: [Int]
    /// Whether the tensor is stored as compressed rows with ascending columns
    /// (`CompressedRowFilter`), found once here rather than by each reader.
    public let isCompressedRows: Bool

    /// Checks `description` for `valueCount` stored values.
    ///
    /// Throws a `KernelError` if the description is inconsistent: a
    /// traversal order that is not a permutation of the required form, block
    /// map entries out of range or not increasing, a block size that is not
    /// a positive divisor of its dimension, a dense level whose size
    /// disagrees with the shape, CSR segments that do not start at 0,
    /// decrease or do not end at the index count, indices out of range, a
    /// value count that differs from the stored positions, or a dense size
    /// above `Densify.maxDenseElements`.
    public init(_ description: SparseTensorDescription, valueCount: Int) throws {
        func fail(_ message: String) -> KernelError { KernelError(op: "DENSIFY", message) }
        let shape = description.denseShape
        let n = shape.count, k = description.blockMap.count
        let levels = description.traversalOrder.count

        guard (1...TensorShape.maxRank).contains(n) else {
            throw fail("dense shape \(shape) must have rank 1...\(TensorShape.maxRank)")
        }
        var count = 1
        for size in shape {
            guard size >= 0 else { throw fail("dense shape \(shape) has a negative dimension") }
            let (product, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow, product <= Densify.maxDenseElements else {
                throw fail("dense shape \(shape) has more than \(Densify.maxDenseElements) elements")
            }
            count = product
        }
        denseCount = count

        guard k <= n else {
            throw fail("block map \(description.blockMap) has \(k) entries for a rank-\(n) tensor")
        }
        guard levels == n + k else {
            throw fail("traversal order \(description.traversalOrder) must have \(n + k) entries (rank \(n) + \(k) block dimensions)")
        }
        guard description.dimensions.count == levels else {
            throw fail("\(description.dimensions.count) dimension descriptions given for \(levels) traversal levels")
        }
        let order = description.traversalOrder
        guard order[..<n].sorted() == Array(0..<n), order[n...].sorted() == Array(n..<(n + k)) else {
            throw fail(
                "traversal order \(order) must list 0..<\(n) then \(n)..<\(n + k), each in some order")
        }
        for (j, dimension) in description.blockMap.enumerated() {
            guard (0..<n).contains(dimension) else {
                throw fail("block map \(description.blockMap) entry \(dimension) is not a dimension of rank \(n)")
            }
            guard j == 0 || description.blockMap[j - 1] < dimension else {
                throw fail("block map \(description.blockMap) must be strictly increasing")
            }
        }

        // Size of each of the n + k dimensions, and its dense stride. A shape
        // with a zero dimension has no element-count bound on its other
        // sizes, so the stride products are checked.
        func overflowError() -> KernelError { fail("strides of dense shape \(shape) overflow") }
        var rowMajorStrides = [Int](repeating: 1, count: n)
        for d in stride(from: n - 2, through: 0, by: -1) {
            let (product, overflow) = rowMajorStrides[d + 1].multipliedReportingOverflow(by: shape[d + 1])
            guard !overflow else { throw overflowError() }
            rowMajorStrides[d] = product
        }
        var sizes = shape
        var strides = rowMajorStrides
        for (j, dimension) in description.blockMap.enumerated() {
            guard let level = order.firstIndex(of: n + j),
                case .dense(let blockSize) = description.dimensions[level]
            else {
                throw fail("the level of block dimension \(j) must be dense")
            }
            guard blockSize > 0, shape[dimension] % blockSize == 0 else {
                throw fail("block size \(blockSize) does not divide dimension \(dimension) of dense shape \(shape)")
            }
            sizes[dimension] = shape[dimension] / blockSize
            let (blockStride, overflow) = rowMajorStrides[dimension].multipliedReportingOverflow(by: blockSize)
            guard !overflow else { throw overflowError() }
            strides[dimension] = blockStride
            sizes.append(blockSize)
            strides.append(rowMajorStrides[dimension])
        }

        // Walk the levels, counting storage positions and checking each level.
        // The positions of every level are capped like the dense size: the
        // walk visits each of them, and a zero-sized dimension late in the
        // order would otherwise leave a huge earlier level unbounded.
        var positions = 1
        var levelStrides: [Int] = []
        for level in 0..<levels {
            let dimension = order[level], size = sizes[dimension]
            levelStrides.append(strides[dimension])
            switch description.dimensions[level] {
            case .dense(let denseSize):
                guard denseSize == size else {
                    throw fail("level \(level) is dense with size \(denseSize) but dimension \(dimension) has size \(size)")
                }
                let (product, overflow) = positions.multipliedReportingOverflow(by: size)
                guard !overflow, product <= Densify.maxDenseElements else {
                    throw fail("level \(level) has more than \(Densify.maxDenseElements) positions")
                }
                positions = product
            case .sparseCSR(let segments, let indices):
                guard segments.count == positions + 1 else {
                    throw fail(
                        "level \(level) has \(segments.count) segment bounds but \(positions) enclosing positions need \(positions + 1)")
                }
                let (first, last) = (segments[0], segments[positions])
                guard first == 0 else {
                    throw fail("level \(level) segments must start at 0, got \(first)")
                }
                if let p = segments.firstDecrease() {
                    throw fail("level \(level) segments decrease at \(p): \(segments[p - 1]) then \(segments[p])")
                }
                guard last == indices.count else {
                    throw fail("level \(level) segments end at \(last) but there are \(indices.count) indices")
                }
                if let bad = indices.firstIndex(outside: 0..<size) {
                    throw fail("level \(level) index \(indices[bad]) is outside 0..<\(size) of dimension \(dimension)")
                }
                positions = indices.count
            }
        }
        guard positions == valueCount else {
            throw fail("the description stores \(positions) values but \(valueCount) were given")
        }
        self.description = description
        storedCount = positions
        denseStrides = levelStrides
        isCompressedRows = Self.storesCompressedRows(description)
    }
}

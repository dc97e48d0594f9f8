import Tensor
import TestSupport
import Testing

@testable import Kernels

/// A sparse 1×1 convolution's weight lists read straight from a filter stored
/// as compressed rows are the lists read from the dense convolution's packed
/// panels, bit for bit; and only filters really stored that way are read so.
@Suite struct CompressedRowFilterTests {
    typealias Problem = SparsePointwiseConv2DCHWTests.Problem

    /// `filter` (`[rows, columns]`) as a TFLite sparse tensor `[rows, 1, 1,
    /// columns]` with its last dimension compressed; besides the non-zeros, a
    /// random fifth of the zeros are stored too, as +0 or −0 (a file may
    /// store them), so the filter it stands for is `filter` with those zeros' signs.
    static func compressed(
        _ filter: [Float], rows: Int, columns: Int, rng: inout SeededGenerator
    ) throws -> (rows: CompressedRowFilter, dense: [Float]) {
        let (description, values) = CompressedRowsEncoding.encode(filter, rows: rows, columns: columns) {
            guard Int.random(in: 0..<5, using: &rng) == 0 else { return nil }
            return Bool.random(using: &rng) ? 0 : -0.0
        }
        let layout = try SparseTensorLayout(description, valueCount: values.count)
        let dense = Densify.densify(values: values, layout: layout)
        #expect(dense == filter)
        return (try #require(CompressedRowFilter(layout: layout, values: values)), dense)
    }

    /// The same lists both ways, over block sizes, packed and unpacked input
    /// offsets, an all-zero row, an all-non-zero row and a row with a −0 bias
    /// (which keeps its zeros, stored ones of either sign among them), for
    /// each kernel family's panels.
    @Test func listsFromCompressedRowsAreTheListsFromPackedPanels() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for family in KernelInstructionSet.supported {
            for (pixels, inputChannels, outputChannels, blockChannels) in [
                (9, 6, 4, 128), (49, 40, 19, 8), (64, 37, 33, 16), (100, 112, 24, 40), (196, 300, 7, 128),
            ] {
                // The problem's random filter and bias (−0 in channel 2), its zeros' signs
                // as the compressed rows store them.
                let problem = try Problem(
                    batch: 1, pixels: pixels, inputChannels: inputChannels, outputChannels: outputChannels,
                    activation: .relu, residualFirst: nil, instructionSet: family, rng: &rng)
                let (filter, denseFilter) = try Self.compressed(
                    problem.filter, rows: outputChannels, columns: inputChannels, rng: &rng)
                /// The convolution with its filter given as `filter`.
                func conv(_ filter: ConstantData, defersCompressedRows: Bool = false) throws -> Conv2D {
                    try Conv2D.prepare(
                        inputs: [
                            ConvTestSupport.activation([1, problem.height, problem.width, inputChannels]),
                            Operand(shape: TensorShape(validated: [outputChannels, 1, 1, inputChannels]), constant: filter),
                            ConvTestSupport.constant([outputChannels], problem.bias),
                        ],
                        options: .init(padding: .same, activation: .relu), instructionSet: family,
                        defersCompressedRows: defersCompressedRows)
                }
                let dense = try conv(.float32(denseFilter)), compressed = try conv(.compressedRows(filter))
                let deferred = try conv(.compressedRows(filter), defersCompressedRows: true)
                #expect(!deferred.isFilterPacked)
                for packs in [false, true] {
                    let fromPanels = try #require(SparsePointwiseConv2DCHW(
                        dense, maxDensity: 1, blockChannels: blockChannels, packsInput: packs))
                    // Rows given with a packed convolution, or with one whose packing was deferred.
                    for fromRows in try [compressed, deferred].map({ conv in
                        try #require(SparsePointwiseConv2DCHW(
                            conv, maxDensity: 1, blockChannels: blockChannels, packsInput: packs, filter: { filter }))
                    }) {
                        let context = "\(problem) blocks of \(blockChannels) packs \(packs) seed \(seed)"
                        let (rowLists, panelLists) = (fromRows.lists.copies, fromPanels.lists.copies)
                        #expect(rowLists.values.map(\.bitPattern) == panelLists.values.map(\.bitPattern), "\(context)")
                        #expect(rowLists.offsets == panelLists.offsets, "\(context)")
                        #expect(rowLists.starts == panelLists.starts, "\(context)")
                        #expect(fromRows.density == fromPanels.density, "\(context)")
                        #expect(fromRows.blockCount == fromPanels.blockCount, "\(context)")
                        #expect(fromRows.bias.map(\.bitPattern) == fromPanels.bias.map(\.bitPattern), "\(context)")
                    }
                }
            }
        }
    }

    /// The density limit counts the non-zeros, not the stored values; a
    /// filter of another shape than the convolution's is not used.
    @Test func densityAndShapeAreCheckedOnTheCompressedRows() throws {
        var rng = SeededGenerator(seed: 3)
        var filter = [Float](repeating: 0, count: 4 * 10)
        for i in 0..<20 { filter[i * 2] = 1 }  // half of the values
        let rows = try Self.compressed(filter, rows: 4, columns: 10, rng: &rng).rows
        let conv = try Conv2D.prepare(
            inputs: [
                ConvTestSupport.activation([1, 3, 3, 10]),
                Operand(shape: TensorShape(validated: [4, 1, 1, 10]), constant: .compressedRows(rows)),
            ],
            options: .init(padding: .valid), instructionSet: .baseline)
        #expect(SparsePointwiseConv2DCHW(conv, filter: rows) != nil)
        #expect(SparsePointwiseConv2DCHW(conv, maxDensity: 0.49, filter: rows) == nil)
        let transposed = try Self.compressed(filter, rows: 10, columns: 4, rng: &rng).rows
        #expect(SparsePointwiseConv2DCHW(conv, maxDensity: 1, filter: transposed) == nil)
    }

    /// Every convolution and fully connected layer packs compressed rows
    /// into the panels the dense values give, float16 or float32, in each
    /// kernel family.
    @Test func packedFromCompressedRowsAsFromDenseValues() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for family in KernelInstructionSet.supported {
            for (outputChannels, kernelSize, inputChannels, halves) in [
                (1, 1, 5, false), (2, 1, 7, true), (19, 1, 40, true), (33, 1, 24, false), (24, 3, 8, true), (8, 2, 3, false),
            ] {
                let rowCount = outputChannels * kernelSize * kernelSize
                var filter = [Float](repeating: 0, count: rowCount * inputChannels)
                for i in filter.indices where Int.random(in: 0..<3, using: &rng) == 0 {
                    let value = Float.random(in: -2...2, using: &rng)
                    filter[i] = halves ? Float(Float16(value)) : value
                }
                let (rows, dense) = try Self.compressed(filter, rows: rowCount, columns: inputChannels, rng: &rng)
                let shape = TensorShape(validated: [outputChannels, kernelSize, kernelSize, inputChannels])
                let input = ConvTestSupport.activation([1, 6, 6, inputChannels])
                let bias = ConvTestSupport.constant([outputChannels], rng.floats(outputChannels))
                func conv(_ filter: ConstantData, defersCompressedRows: Bool = false) throws -> Conv2D {
                    try Conv2D.prepare(
                        inputs: [input, Operand(shape: shape, constant: filter), bias],
                        options: .init(padding: .same), instructionSet: family, defersCompressedRows: defersCompressedRows)
                }
                let fromDense = try conv(.float32(dense)), fromRows = try conv(.compressedRows(rows))
                let context = "Cout \(outputChannels) \(kernelSize)×\(kernelSize) Cin \(inputChannels) \(family) seed \(seed)"
                Self.expectSameStorage(fromRows.packed, fromDense.packed, context)
                // A 1×1 filter's packing is deferred on request, and then packs the same;
                // a larger one is packed at once.
                let deferred = try conv(.compressedRows(rows), defersCompressedRows: true)
                #expect(deferred.isFilterPacked == (kernelSize != 1), "\(context)")
                Self.expectSameStorage(try deferred.packingFilter(rows).packed, fromDense.packed, context)
                if kernelSize == 1 {
                    let weights = TensorShape(validated: [outputChannels, inputChannels])
                    func connected(_ filter: ConstantData) throws -> FullyConnected {
                        try FullyConnected.prepare(
                            inputs: [ConvTestSupport.activation([3, inputChannels]), Operand(shape: weights, constant: filter), bias],
                            options: .init(), instructionSet: family)
                    }
                    Self.expectSameStorage(
                        try connected(.compressedRows(rows)).packed, try connected(.float32(dense)).packed, context)
                }
            }
        }
    }

    /// The same precision and the same bytes in the whole packed storage.
    static func expectSameStorage(
        _ actual: PackedGemmWeights, _ expected: PackedGemmWeights, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(actual.panelPrecision == expected.panelPrecision, "\(context)", sourceLocation: sourceLocation)
        let bytes = { (packed: PackedGemmWeights) in
            Array(UnsafeRawBufferPointer(start: packed.storage.baseAddress, count: packed.storage.count * 4))
        }
        #expect(bytes(actual) == bytes(expected), "\(context)", sourceLocation: sourceLocation)
    }

    /// Only compressed rows with ascending columns are taken as such.
    @Test func onlyRowsWithAscendingColumnsInTraversalOrderAreCompressedRows() throws {
        func layout(_ order: [Int], _ dimensions: [SparseTensorDescription.Dimension], blockMap: [Int] = [],
                    shape: [Int] = [2, 3], values: Int) throws -> SparseTensorLayout {
            try SparseTensorLayout(
                SparseTensorDescription(denseShape: shape, traversalOrder: order, blockMap: blockMap, dimensions: dimensions),
                valueCount: values)
        }
        let rowsOf = { (layout: SparseTensorLayout) in
            CompressedRowFilter(layout: layout, values: [Float](repeating: 1, count: layout.storedCount))
        }
        let good = try layout([0, 1], [.dense(size: 2), .sparseCSR(segments: [0, 2, 3], indices: [0, 2, 1])], values: 3)
        let rows = try #require(rowsOf(good))
        #expect(rows.rows == 2 && rows.columns == 3)
        // Columns out of order, or one twice, within a row.
        #expect(rowsOf(try layout([0, 1], [.dense(size: 2), .sparseCSR(segments: [0, 2, 3], indices: [2, 0, 1])], values: 3)) == nil)
        #expect(rowsOf(try layout([0, 1], [.dense(size: 2), .sparseCSR(segments: [0, 2, 3], indices: [1, 1, 1])], values: 3)) == nil)
        // Descending across rows is fine: each row has its own columns.
        #expect(rowsOf(try layout([0, 1], [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [2, 0])], values: 2)) != nil)
        // Columns outer, rows compressed.
        #expect(rowsOf(try layout([1, 0], [.dense(size: 3), .sparseCSR(segments: [0, 1, 1, 2], indices: [0, 1])], values: 2)) == nil)
        // The outer level compressed.
        #expect(rowsOf(try layout([0, 1], [.sparseCSR(segments: [0, 1], indices: [1]), .dense(size: 3)], values: 3)) == nil)
        // Blocks of 1×… columns.
        let blocked = try layout(
            [0, 1, 2], [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [0, 0]), .dense(size: 3)],
            blockMap: [1], values: 6)
        #expect(!blocked.isCompressedRows)
        #expect(rowsOf(blocked) == nil)
        // A value count other than the layout's.
        #expect(CompressedRowFilter(layout: good, values: [1, 2]) == nil)
    }
}

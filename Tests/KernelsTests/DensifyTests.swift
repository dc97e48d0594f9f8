import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport
private typealias Sparse = SparseTensorDescription

@Suite("DENSIFY")
struct DensifyTests {
    @Test func csrMatrix() throws {
        // [[0, 1, 0, 2],
        //  [0, 0, 0, 0],
        //  [3, 0, 0, 4]]: rows dense, columns compressed.
        let description = Sparse(
            denseShape: [3, 4], traversalOrder: [0, 1],
            dimensions: [.dense(size: 3), .sparseCSR(segments: [0, 2, 2, 4], indices: [1, 3, 0, 3])])
        let dense = try Densify.densify(values: [1, 2, 3, 4], description: description)
        #expect(dense == [0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 0, 4])
    }

    @Test func columnMajorTraversal() throws {
        // [[1, 0], [0, 2], [3, 0]] stored column by column: column 0 holds rows
        // 0 and 2, column 1 holds row 1.
        let description = Sparse(
            denseShape: [3, 2], traversalOrder: [1, 0],
            dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 2, 3], indices: [0, 2, 1])])
        #expect(try Densify.densify(values: [1, 3, 2], description: description) == [1, 0, 0, 2, 3, 0])
    }

    @Test func convolutionWeightWithCompressedInputChannels() throws {
        // [Cout = 3, 1, 1, Cin = 4] as a 1×1 convolution filter: output channel
        // o keeps input channels {0, 2}, {} and {1, 2, 3}.
        let description = Sparse(
            denseShape: [3, 1, 1, 4], traversalOrder: [0, 1, 2, 3],
            dimensions: [
                .dense(size: 3), .dense(size: 1), .dense(size: 1),
                .sparseCSR(segments: [0, 2, 2, 5], indices: [0, 2, 1, 2, 3]),
            ])
        let dense = try Densify.densify(values: [1, 2, 3, 4, 5], description: description)
        #expect(dense == [1, 0, 2, 0, 0, 0, 0, 0, 0, 3, 4, 5])
        // The same filter with every level after the first compressed: the two
        // size-1 levels list index 0 under each present parent.
        let nested = Sparse(
            denseShape: [3, 1, 1, 4], traversalOrder: [0, 1, 2, 3],
            dimensions: [
                .dense(size: 3),
                .sparseCSR(segments: [0, 1, 1, 2], indices: [0, 0]),
                .sparseCSR(segments: [0, 1, 2], indices: [0, 0]),
                .sparseCSR(segments: [0, 2, 5], indices: [0, 2, 1, 2, 3]),
            ])
        #expect(try Densify.densify(values: [1, 2, 3, 4, 5], description: nested) == dense)
    }

    @Test func blockSparseMatrix() throws {
        // 4×4 in 2×2 blocks: block (0, 0) = [[1, 2], [3, 4]], block (1, 1) = [[5, 6], [7, 8]].
        let expected: [Float] = [
            1, 2, 0, 0,
            3, 4, 0, 0,
            0, 0, 5, 6,
            0, 0, 7, 8,
        ]
        let rowMajorBlocks = Sparse(
            denseShape: [4, 4], traversalOrder: [0, 1, 2, 3], blockMap: [0, 1],
            dimensions: [
                .dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [0, 1]),
                .dense(size: 2), .dense(size: 2),
            ])
        #expect(try Densify.densify(values: [1, 2, 3, 4, 5, 6, 7, 8], description: rowMajorBlocks) == expected)
        // Blocks traversed column by column inside.
        var columnMajorBlocks = rowMajorBlocks
        columnMajorBlocks.traversalOrder = [0, 1, 3, 2]
        #expect(try Densify.densify(values: [1, 3, 2, 4, 5, 7, 6, 8], description: columnMajorBlocks) == expected)
        // A block over the columns only (1×2 blocks).
        let rowBlocks = Sparse(
            denseShape: [2, 4], traversalOrder: [0, 1, 2], blockMap: [1],
            dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [1, 0]), .dense(size: 2)])
        #expect(try Densify.densify(values: [1, 2, 3, 4], description: rowBlocks) == [0, 0, 1, 2, 3, 4, 0, 0])
    }

    @Test func randomMatricesSurviveACSRRoundTrip() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<50 {
            let rows = Int.random(in: 1...6, using: &generator), columns = Int.random(in: 1...6, using: &generator)
            let dense: [Float] = (0..<(rows * columns)).map { _ in
                Bool.random(using: &generator) ? 0 : Float.random(in: 0.5...2, using: &generator)
            }
            let (description, values) = CompressedRowsEncoding.encode(dense, rows: rows, columns: columns)
            #expect(try Densify.densify(values: values, description: description) == dense, "seed \(seed)")
        }
    }

    @Test func inconsistentDescriptionsAreRejected() throws {
        let csr = Sparse.Dimension.sparseCSR(segments: [0, 2, 2, 4], indices: [1, 3, 0, 3])
        let good = Sparse(denseShape: [3, 4], traversalOrder: [0, 1], dimensions: [.dense(size: 3), csr])
        let values: [Float] = [1, 2, 3, 4]
        // Both entry points reject it: densifying, and checking the layout without densifying.
        func expectRejected(_ fragment: String, _ description: Sparse, values: [Float] = values,
                            sourceLocation: SourceLocation = #_sourceLocation) {
            Support.expectError("DENSIFY", fragment, sourceLocation: sourceLocation) {
                try Densify.densify(values: values, description: description)
            }
            Support.expectError("DENSIFY", fragment, sourceLocation: sourceLocation) {
                try SparseTensorLayout(description, valueCount: values.count)
            }
        }
        #expect(throws: Never.self) { try Densify.densify(values: values, description: good) }
        #expect(try SparseTensorLayout(good, valueCount: values.count).denseCount == 12)

        var d = good
        d.denseShape = []
        expectRejected("rank 1...8", d)
        d = good
        d.denseShape = [3, -4]
        expectRejected("negative dimension", d)
        d = good
        d.denseShape = [1 << 14, 1 << 14]
        expectRejected("more than \(Densify.maxDenseElements) elements", d)
        d = good
        d.traversalOrder = [0]
        expectRejected("must have 2 entries", d)
        d = good
        d.traversalOrder = [0, 0]
        expectRejected("must list 0..<2", d)
        d = good
        d.dimensions = [.dense(size: 3)]
        expectRejected("1 dimension descriptions given for 2", d)
        d = good
        d.dimensions = [.dense(size: 4), csr]
        expectRejected("level 0 is dense with size 4 but dimension 0 has size 3", d)

        d = good
        d.dimensions = [.dense(size: 3), .sparseCSR(segments: [0, 2, 4], indices: [1, 3, 0, 3])]
        expectRejected("3 segment bounds but 3 enclosing positions need 4", d)
        d.dimensions = [.dense(size: 3), .sparseCSR(segments: [1, 2, 2, 4], indices: [1, 3, 0, 3])]
        expectRejected("must start at 0", d)
        d.dimensions = [.dense(size: 3), .sparseCSR(segments: [0, 3, 2, 4], indices: [1, 3, 0, 3])]
        expectRejected("decrease at 2", d)
        d.dimensions = [.dense(size: 3), .sparseCSR(segments: [0, 2, 2, 3], indices: [1, 3, 0, 3])]
        expectRejected("end at 3 but there are 4 indices", d)
        d.dimensions = [.dense(size: 3), .sparseCSR(segments: [0, 2, 2, 4], indices: [1, 4, 0, 3])]
        expectRejected("index 4 is outside 0..<4", d)
        d.dimensions = [.dense(size: 3), .sparseCSR(segments: [0, 2, 2, 4], indices: [1, -1, 0, 3])]
        expectRejected("index -1 is outside", d)
        expectRejected("stores 4 values but 3 were given", good, values: [1, 2, 3])

        let block = Sparse(
            denseShape: [4, 4], traversalOrder: [0, 1, 2, 3], blockMap: [0, 1],
            dimensions: [
                .dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [0, 1]),
                .dense(size: 2), .dense(size: 2),
            ])
        let blockValues: [Float] = (1...8).map(Float.init)
        #expect(throws: Never.self) { try Densify.densify(values: blockValues, description: block) }
        var b = block
        b.blockMap = [0, 2]
        expectRejected("entry 2 is not a dimension", b, values: blockValues)
        b.blockMap = [1, 0]
        expectRejected("strictly increasing", b, values: blockValues)
        b.blockMap = [0, 1, 1]
        expectRejected("3 entries for a rank-2 tensor", b, values: blockValues)
        b = block
        b.traversalOrder = [0, 1, 2]
        expectRejected("must have 4 entries", b, values: blockValues)
        b = block
        b.traversalOrder = [0, 2, 1, 3]
        expectRejected("must list 0..<2 then 2..<4", b, values: blockValues)
        b = block
        b.dimensions[3] = .sparseCSR(segments: [0, 2, 4, 6, 8], indices: [0, 1, 0, 1, 0, 1, 0, 1])
        expectRejected("block dimension 1 must be dense", b, values: blockValues)
        b = block
        b.denseShape = [4, 5]
        expectRejected("block size 2 does not divide dimension 1", b, values: blockValues)
        b = block
        b.dimensions[2] = .dense(size: 0)
        expectRejected("block size 0", b, values: blockValues)

        let empty = Sparse(
            denseShape: [0, 1 << 40, 1 << 40], traversalOrder: [0, 1, 2],
            dimensions: [.dense(size: 0), .dense(size: 1 << 40), .dense(size: 1 << 40)])
        expectRejected("overflow", empty, values: [])
        // A zero-sized dimension traversed last must not leave the walk over
        // the huge dimension before it unbounded.
        let zeroLast = Sparse(
            denseShape: [0, 1 << 40], traversalOrder: [1, 0],
            dimensions: [.dense(size: 1 << 40), .dense(size: 0)])
        expectRejected("level 0 has more than \(Densify.maxDenseElements) positions", zeroLast, values: [])
    }
}

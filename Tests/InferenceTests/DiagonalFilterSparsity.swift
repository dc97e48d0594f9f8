import TestSupport

extension TestModel.Sparsity {
    /// A `[2, 1, 1, 2]` CONV_2D filter stored sparse with one value per output channel, on the
    /// diagonal: the first three dimensions dense, the input channels CSR (output channel `o`
    /// keeps input channel `o`). Its stored values are the filter's `[0, 0, 0, 0]` and
    /// `[1, 0, 0, 1]` entries.
    static let diagonal2x1x1x2 = TestModel.Sparsity(
        traversalOrder: [0, 1, 2, 3],
        dimensions: [
            TestModel.Dimension(format: 0, denseSize: 2),
            TestModel.Dimension(format: 0, denseSize: 1),
            TestModel.Dimension(format: 0, denseSize: 1),
            TestModel.Dimension(format: 1, segments: .uint8([0, 1, 2]), indices: .uint8([0, 1])),
        ])
}

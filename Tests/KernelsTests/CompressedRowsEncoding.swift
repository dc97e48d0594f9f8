import Kernels
import Tensor

/// A dense `[rows, columns]` matrix written as a TFLite sparse tensor of
/// shape `[rows, 1, 1, columns]` whose last dimension is compressed (CSR over
/// the columns), as a 1×1 convolution's sparse filter is stored.
enum CompressedRowsEncoding {
    /// The description and the stored values of `dense`: its non-zeros, and
    /// each zero for which `storedZero()` gives a value (+0 or −0) to store
    /// in its place (nil: not stored).
    static func encode(
        _ dense: [Float], rows: Int, columns: Int, storedZero: () -> Float? = { nil }
    ) -> (description: SparseTensorDescription, values: [Float]) {
        var segments: [Int32] = [0], indices: [Int32] = [], values: [Float] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let weight = dense[row * columns + column]
                guard let stored = weight != 0 ? weight : storedZero() else { continue }
                indices.append(Int32(column))
                values.append(stored)
            }
            segments.append(Int32(indices.count))
        }
        let description = SparseTensorDescription(
            denseShape: [rows, 1, 1, columns], traversalOrder: [0, 1, 2, 3],
            dimensions: [
                .dense(size: rows), .dense(size: 1), .dense(size: 1),
                .sparseCSR(segments: IndexList(segments), indices: IndexList(indices)),
            ])
        return (description, values)
    }
}

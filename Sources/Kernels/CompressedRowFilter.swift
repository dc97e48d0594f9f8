import Tensor

/// A filter `[rows, columns]` (a 1×1 convolution's `[Cout, Cin]`) stored as
/// compressed rows, as a TFLite sparse constant whose last dimension alone is
/// compressed stores it: row `r` holds `values[p]` at column `indices[p]` for
/// `p` in `segments[r] ..< segments[r + 1]`, in strictly ascending column
/// order, and 0 everywhere else. A sparse kernel's weight lists are read off
/// it directly, without densifying the filter first.
public struct CompressedRowFilter: Sendable {
    /// Rows: the dense tensor's dimensions but the last, flattened.
    public let rows: Int
    /// Columns: the dense tensor's last dimension.
    public let columns: Int
    /// `rows + 1` bounds into `indices` and `values`, from 0 to their count.
    let segments: IndexList
    /// The column of each stored value, ascending within a row.
    let indices: IndexList
    /// The number of stored values.
    let storedCount: Int
    /// Reads the stored values (zeros may be among them), anew on each call.
    private let readValues: @Sendable () -> [Float]

    /// The compressed rows of the tensor that `layout` describes, whose stored
    /// values are `values` (`layout.storedCount` of them); nil unless the
    /// tensor is stored that way (`SparseTensorLayout.isCompressedRows`).
    public init?(layout: SparseTensorLayout, values: [Float]) {
        guard values.count == layout.storedCount else { return nil }
        self.init(layout: layout, reading: { values })
    }

    /// `init(layout:values:)` with the stored values read by `values` only
    /// when they are asked for (`storedValues()`), not when the filter is
    /// made: a load whose sparse kernels come from the weight cache never
    /// reads them. `values` must return `layout.storedCount` values.
    public init?(layout: SparseTensorLayout, reading values: @escaping @Sendable () -> [Float]) {
        let description = layout.description
        guard layout.isCompressedRows, case .sparseCSR(let segments, let indices)? = description.dimensions.last
        else { return nil }
        self.rows = segments.count - 1
        self.columns = description.denseShape[description.denseShape.count - 1]
        self.segments = segments
        self.indices = indices
        self.storedCount = layout.storedCount
        self.readValues = values
    }

    /// The stored values, in storage order: row by row, each row's in
    /// ascending column order. Read anew on each call.
    func storedValues() -> [Float] {
        let values = readValues()
        precondition(values.count == storedCount, "\(values.count) values read for \(storedCount) stored")
        return values
    }

    /// The filter it stands for: `[rows, columns]` row-major, the stored
    /// values in place (a stored −0 stays −0) and +0 elsewhere, as densifying
    /// the sparse tensor gives it.
    public func densified() -> [Float] {
        var dense = [Float](repeating: 0, count: rows * columns)
        var rowStart = 0
        forEachStoredValue(of: storedValues(), startingRow: { rowStart = $0 * columns }) { value, column in
            dense[rowStart + column] = value
        }
        return dense
    }

    /// Calls `body(value, column)` for every stored value of every row, row
    /// by row, each in ascending column order, after `startRow(row)`;
    /// `values` are the stored values (`storedValues()`).
    @inline(__always)
    func forEachStoredValue(of values: [Float], startingRow startRow: (Int) -> Void, _ body: (Float, Int) -> Void) {
        precondition(values.count == storedCount, "\(values.count) values for \(storedCount) stored")
        segments.withElements { segments in
            indices.withElements { indices in
                values.withUnsafeBufferPointer { values in
                    for row in 0..<rows {
                        startRow(row)
                        for p in Int(segments[row])..<Int(segments[row + 1]) { body(values[p], Int(indices[p])) }
                    }
                }
            }
        }
    }
}

extension SparseTensorLayout {
    /// Whether `description`, checked by `SparseTensorLayout.init`, stores
    /// compressed rows: no blocks, dimensions traversed in order, every level
    /// dense but the last, which is compressed, and each row's columns
    /// strictly ascending (a file may list them in any order, or twice;
    /// densifying then keeps the last, which this form cannot say).
    static func storesCompressedRows(_ description: SparseTensorDescription) -> Bool {
        let rank = description.denseShape.count
        guard description.blockMap.isEmpty, description.traversalOrder == Array(0..<rank),
              case .sparseCSR(let segments, let indices)? = description.dimensions.last,
              description.dimensions.dropLast().allSatisfy({ if case .dense = $0 { true } else { false } })
        else { return false }
        // The segments run from 0 to the index count without decreasing and every index
        // is a column (checked): only the order within rows is left.
        return indices.ascendsStrictly(withinSegments: segments)
    }
}

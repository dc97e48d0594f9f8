/// Maps limited-range Y′CbCr samples to full range, for the one matrix libyuv computes poorly.
///
/// libyuv keeps its chroma coefficients in 6-bit fixed point, at most 2.0 (128/64); BT.709
/// limited range needs 2.112 for Cb → B, which libyuv caps (its `kYuvH709Constants`), so
/// saturated blues come out up to 13 grey levels dark. Expanded to full range first
/// (Y′: 16…235 → 0…255, Cb and Cr: 16…240 → 0…255 around 128, each rounded and clamped), the
/// samples convert with libyuv's full-range BT.709 matrix (`kYuvF709Constants`, coefficients
/// within range) to within 2 grey levels of the BT.709 formula.
enum LimitedRangeExpansion {
    /// Full-range luma for each limited-range value: round((v − 16) × 255/219), clamped to 0…255.
    static let luma: [UInt8] = (0...255).map { clamped((Double($0) - 16) * 255 / 219) }
    /// Full-range chroma for each limited-range value: round((v − 128) × 255/224 + 128), clamped.
    static let chroma: [UInt8] = (0...255).map { clamped((Double($0) - 128) * 255 / 224 + 128) }

    /// `rows` rows of `rowLength` samples from `source` (`stride` bytes apart), each sample looked
    /// up in `table`; tightly packed, `rowLength` bytes a row.
    static func expanded(
        _ source: UnsafePointer<UInt8>, stride: Int, rowLength: Int, rows: Int, table: [UInt8]
    ) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: rowLength * rows) { target, initialized in
            table.withUnsafeBufferPointer { table in
                for row in 0..<rows {
                    let sourceRow = source + row * stride
                    let targetRow = row * rowLength
                    for column in 0..<rowLength {
                        target[targetRow + column] = table[Int(sourceRow[column])]
                    }
                }
            }
            initialized = rowLength * rows
        }
    }

    private static func clamped(_ value: Double) -> UInt8 {
        UInt8(min(max(value.rounded(), 0), 255))
    }
}

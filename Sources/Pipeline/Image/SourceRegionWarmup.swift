import ImageIO
import Synchronization

/// Reads the image bytes a band of a warp's rows will sample, once, in address order, before the
/// warp reads them along the ROI's rotated rows.
///
/// Between two warps the models run and push the image out of the nearer caches; a rotated warp
/// then meets each source cache line first at a position no hardware prefetcher predicts, and
/// waits for it. Read in address order instead (one byte per 64-byte line, row by row over the
/// bounding box of the band's source positions), the lines stream in at the memory's rate, and
/// the warp finds them in the core's own cache. Only a hint: nothing the warp computes depends
/// on it.
enum SourceRegionWarmup {
    /// Tensor rows whose source region is read at a time: a band small enough for its region
    /// to stay in a core's L2 cache on any of these CPUs.
    static let bandRows = 32
    /// The largest region read, bytes (a band of a very large downscale is not worth it).
    static let maxBytes = 256 * 1024
    /// Where the bytes read go, so that the reads are not optimised away.
    private static let sink = Atomic<UInt8>(0)

    /// The part of an image a band samples: image rows `rows`, and in each the bytes `bytes`
    /// (from the row's start).
    struct Region: Equatable {
        let rows: ClosedRange<Int>
        let bytes: Range<Int>
    }

    /// The bounding box of the source positions of tensor rows `rows` (all `outputWidth`
    /// columns), widened by a pixel for the right and bottom taps and clipped to the image; nil
    /// when it is larger than ``maxBytes``, or when the map's `w` is not positive at the band's
    /// corners (where the box of the corners would not bound the band).
    static func region(of map: ProjectiveMap, outputWidth: Int, rows: Range<Int>, imageWidth: Int,
                       imageHeight: Int) -> Region? {
        let m = map.m
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for (x, y) in [(0, rows.lowerBound), (outputWidth, rows.lowerBound),
                       (0, rows.upperBound), (outputWidth, rows.upperBound)] {
            let x = Double(x), y = Double(y)
            let w = m.6 * x + m.7 * y + m.8
            guard w > 0 else { return nil }
            let sourceX = (m.0 * x + m.1 * y + m.2) / w, sourceY = (m.3 * x + m.4 * y + m.5) / w
            guard sourceX.isFinite, sourceY.isFinite else { return nil }
            minX = min(minX, sourceX)
            maxX = max(maxX, sourceX)
            minY = min(minY, sourceY)
            maxY = max(maxY, sourceY)
        }
        let lastColumn = Double(imageWidth - 1), lastRow = Double(imageHeight - 1)
        let left = Int(max(0, min(lastColumn, minX.rounded(.down) - 1)))
        let right = Int(max(0, min(lastColumn, maxX.rounded(.up) + 1)))
        let top = Int(max(0, min(lastRow, minY.rounded(.down) - 1)))
        let bottom = Int(max(0, min(lastRow, maxY.rounded(.up) + 1)))
        let bytes = (left * 3)..<((right + 1) * 3)
        guard bytes.count * (bottom - top + 1) <= maxBytes else { return nil }
        return Region(rows: top...bottom, bytes: bytes)
    }

    /// Reads ``region(of:outputWidth:rows:imageWidth:imageHeight:)`` of `image`, whose pixels
    /// are at `source`, one byte per 64 and each row's last.
    static func read(_ image: RGBImage, source: UnsafePointer<UInt8>, map: ProjectiveMap,
                     outputWidth: Int, rows: Range<Int>) {
        guard let region = region(of: map, outputWidth: outputWidth, rows: rows,
                                  imageWidth: image.width, imageHeight: image.height) else { return }
        let rowBytes = image.width * 3
        var folded: UInt8 = 0
        for row in region.rows {
            let start = source + row * rowBytes
            for offset in stride(from: region.bytes.lowerBound, to: region.bytes.upperBound, by: 64) {
                folded ^= start[offset]
            }
            folded ^= start[region.bytes.upperBound - 1]
        }
        sink.store(folded, ordering: .relaxed)
    }
}

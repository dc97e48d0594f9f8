/// Assigns each activation tensor an offset in one shared arena so that
/// tensors whose lifetimes do not overlap reuse the same memory.
///
/// A tensor's lifetime is the closed interval of operator indices
/// `[firstUse, lastUse]` (the producer's index to its last consumer's index).
/// Offsets and sizes are in floats and every offset is a multiple of
/// `AlignedBuffer.paddingFloats`, so each tensor starts on a 64-byte boundary
/// and may be read one SIMD vector past its end.
public struct MemoryPlan: Sendable {
    /// One tensor to place.
    public struct Request: Sendable, Hashable {
        public var elementCount: Int
        public var firstUse: Int
        public var lastUse: Int
        public init(elementCount: Int, firstUse: Int, lastUse: Int) {
            self.elementCount = elementCount
            self.firstUse = firstUse
            self.lastUse = lastUse
        }
    }

    /// Offset in floats of each request, in request order.
    public let offsets: [Int]
    /// Arena size in floats (including the padding of the last tensor).
    public let arenaCount: Int

    /// Floats of a 4 KiB page.
    static let pageFloats = 1024
    /// How far apart within a page `init` starts tensors whose lifetimes
    /// overlap, where it can: three eighths of a page (1.5 KiB).
    static let pageDistance = 384

    /// Greedy-by-size placement (as TFLite's arena planner does): the largest
    /// tensors are placed first, each in the lowest gap between already-placed
    /// tensors with overlapping lifetimes where it fits, or after the last.
    ///
    /// Within its gap a tensor goes to the lowest 64-byte position at least
    /// `pageDistance` floats, within a 4 KiB page, from the start of every
    /// placed tensor whose lifetime overlaps, or else to the one farthest from
    /// them (the gap after the last tensor takes at most a page more):
    /// `staggeredStart`. Placed back to back, tensors whose sizes are whole
    /// pages would start at the same offset in a page, an operator's input and
    /// output among them. Where a map's rows are whole pages too
    /// (96 × 96 × 32, 128 × 128 × 16 and × 24, 256 × 256 × 8), a depthwise
    /// layer then loads input at the same offset in a page as the output it
    /// has just stored (the addresses agree in their low 12 bits, so the load
    /// waits on the store) and reads and writes the same L1 sets: 30–60 %
    /// longer on a Zen 4. Three eighths of a page clears the taps a filter
    /// reads beside the pixel it stores (a pixel of 256 channels is 1 KiB),
    /// and stays clear of half a page, where every other row of a map whose
    /// rows are one and a half pages lies (96 × 16) (`Benchmarks/JOURNAL.md`,
    /// "Tensors staggered within a page").
    public init(requests: [Request]) {
        let pad = AlignedBuffer.paddingFloats
        // Reserve one extra vector per tensor so a full-vector read past its end
        // never touches a live neighbour.
        func paddedSize(_ n: Int) -> Int { (n + pad - 1) / pad * pad + pad }

        let order = requests.indices.sorted { a, b in
            let sa = requests[a].elementCount, sb = requests[b].elementCount
            return sa != sb ? sa > sb : a < b
        }
        var offsets = [Int](repeating: 0, count: requests.count)
        var placed: [(offset: Int, size: Int, first: Int, last: Int)] = []
        var arena = 0
        for index in order {
            let request = requests[index]
            let size = paddedSize(request.elementCount)
            let conflicts = placed
                .filter { $0.first <= request.lastUse && request.firstUse <= $0.last }
                .sorted { $0.offset < $1.offset }
            let starts = conflicts.map(\.offset)
            var offset: Int?
            var gapStart = 0
            for other in conflicts {
                if other.offset > gapStart {
                    offset = Self.staggeredStart(in: gapStart..<other.offset, size: size, from: starts)
                    if offset != nil { break }
                }
                gapStart = max(gapStart, other.offset + other.size)
            }
            // The open gap above every conflicting tensor always has room.
            let start = offset ?? Self.staggeredStart(in: gapStart..<Int.max, size: size, from: starts)!
            offsets[index] = start
            placed.append((start, size, request.firstUse, request.lastUse))
            arena = max(arena, start + size)
        }
        self.offsets = offsets
        self.arenaCount = arena
    }

    /// Where in `gap` (its start a multiple of `AlignedBuffer.paddingFloats`) a tensor of `size`
    /// floats starts: of the positions in steps of `paddingFloats` within a page of the gap's
    /// start where it fits, the lowest at least `pageDistance` within a page from every one of
    /// `starts`, or else the lowest of those farthest from the nearest of them; nil when the
    /// tensor does not fit in `gap`.
    static func staggeredStart(in gap: Range<Int>, size: Int, from starts: [Int]) -> Int? {
        var best: (start: Int, distance: Int)?
        var start = gap.lowerBound
        while start < gap.lowerBound + pageFloats, size <= gap.upperBound - start {
            let distance = starts.reduce(pageDistance) { nearest, other in
                let apart = (start - other) & (pageFloats - 1)
                return min(nearest, apart, pageFloats - apart)
            }
            if distance > best?.distance ?? -1 { best = (start, distance) }
            if distance == pageDistance { break }
            start += AlignedBuffer.paddingFloats
        }
        return best?.start
    }
}

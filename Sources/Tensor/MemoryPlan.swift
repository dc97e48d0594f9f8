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

        /// Whether the two tensors' lifetimes overlap, so that they may not share memory.
        func livesAlongside(_ other: Request) -> Bool {
            firstUse <= other.lastUse && other.firstUse <= lastUse
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

    /// Places `requests` for operators that run on `threadCount` threads: at
    /// two threads with each tensor's halves in place for the two threads
    /// (`halvesAligned`), at any other count greedy by size (`greedyBySize`).
    public init(requests: [Request], threadCount: Int = 1) {
        (offsets, arenaCount) = threadCount == 2 ? Self.halvesAligned(requests) : Self.greedyBySize(requests)
    }

    /// The placement at any thread count but two: greedy by size, as TFLite's
    /// arena planner places tensors. The largest tensors are placed first,
    /// each in the lowest gap between already-placed tensors with overlapping
    /// lifetimes where it fits, or after the last.
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
    static func greedyBySize(_ requests: [Request]) -> (offsets: [Int], arenaCount: Int) {
        let order = requests.indices.sorted { a, b in
            let sa = requests[a].elementCount, sb = requests[b].elementCount
            return sa != sb ? sa > sb : a < b
        }
        var offsets = [Int](repeating: 0, count: requests.count)
        var placed: [(offset: Int, size: Int, request: Request)] = []
        var arena = 0
        for index in order {
            let request = requests[index]
            let size = paddedSize(request.elementCount)
            let conflicts = placed
                .filter { $0.request.livesAlongside(request) }
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
            placed.append((start, size, request))
            arena = max(arena, start + size)
        }
        return (offsets, arena)
    }

    /// The placement at two threads, where most operators cut their output
    /// in two halves by rows (or by channel-major planes), the first half for
    /// the first thread: every tensor's first half ends at its slot's
    /// midpoint, where the first halves of the tensors that hold the slot
    /// before and after it end too, so a thread mostly writes lines that the
    /// same thread wrote last rather than lines the other core holds. Placed by size, a
    /// tensor's halves fall across the halves of the tensors that used its
    /// memory before, and at two threads the stores that take those lines
    /// from the other core are a good part of a small depthwise layer's time.
    /// On a 2-core Xeon (AVX-512) at two threads, the bundled models' layers
    /// summed 0.4–6 % less placed this way (pose_detection, whose large
    /// channel-major planes split by rows within each plane, least), some of
    /// hand_landmark_lite's 14 × 14 depthwise layers 25–30 % less; with the
    /// AVX2 kernels about 1 % (`Benchmarks/JOURNAL.md`, "Each tensor's halves
    /// where the same thread wrote them last").
    ///
    /// Tensors go to slots in order of first use, each to the slot that grows
    /// least of those whose tensors' lifetimes all end before its own starts
    /// (as many slots as tensors live at once); within a slot a tensor's first
    /// `firstHalf(_:)` floats lie below the slot's midpoint and the rest (its
    /// padding included) above. Slots are then placed largest first, each at
    /// the lowest midpoint where none of its tensors meets a tensor it lives
    /// alongside (slots whose tensors never live together may share memory),
    /// staggered within a page from the midpoints of the slots whose tensors
    /// do live alongside its own (`allowedMidpoint`): a depthwise layer's input
    /// and output, of one size, then start as far apart within a page as
    /// `greedyBySize` would start them. The arena is larger than by size:
    /// pose_detection's 4.7 → 6.6 MiB, pose_landmark_full's 7.7 → 8.5,
    /// hand_landmark_full's 2.9 → 3.7, the other bundled models' within
    /// 0.6 MiB (a landmarker's two models share one arena,
    /// `Interpreter.sharingMemory`).
    static func halvesAligned(_ requests: [Request]) -> (offsets: [Int], arenaCount: Int) {
        /// Tensors that take turns in one memory range, and the most floats any of them puts
        /// below and above the range's midpoint.
        struct Slot {
            var members: [Int]
            /// The latest last use of the members.
            var lastUse: Int
            var below: Int
            var above: Int
            /// Floats the slot's range grows by to take a tensor with `low` floats below the
            /// midpoint and `high` above.
            func growth(low: Int, high: Int) -> Int { max(0, low - below) + max(0, high - above) }
        }
        let order = requests.indices.sorted { a, b in
            let fa = requests[a].firstUse, fb = requests[b].firstUse
            return fa != fb ? fa < fb : a < b
        }
        var slots: [Slot] = []
        for index in order {
            let request = requests[index]
            let low = firstHalf(request.elementCount), high = paddedSize(request.elementCount) - low
            // Of the free slots, the one that grows least.
            let free = slots.indices.filter { slots[$0].lastUse < request.firstUse }
            if let slot = free.min(by: { slots[$0].growth(low: low, high: high) < slots[$1].growth(low: low, high: high) }) {
                slots[slot].members.append(index)
                slots[slot].lastUse = max(slots[slot].lastUse, request.lastUse)
                slots[slot].below = max(slots[slot].below, low)
                slots[slot].above = max(slots[slot].above, high)
            } else {
                slots.append(Slot(members: [index], lastUse: request.lastUse, below: low, above: high))
            }
        }
        // Slots placed largest first, each at the lowest midpoint where none of its tensors
        // meets a tensor it lives alongside, staggered within a page where it can be.
        let placement = slots.indices.sorted { a, b in
            let ea = slots[a].below + slots[a].above, eb = slots[b].below + slots[b].above
            return ea != eb ? ea > eb : a < b
        }
        var offsets = [Int](repeating: 0, count: requests.count)
        var midpoints = [Int?](repeating: nil, count: slots.count)
        var arena = 0
        for slot in placement {
            // Midpoints in `forbidden` (open ranges) would make one of the slot's tensors meet one
            // that lives alongside it; `neighbours`, those of the slots such tensors are in.
            var forbidden: [(lower: Int, upper: Int)] = [], neighbours: [Int] = []
            for other in slots.indices {
                guard let midpoint = midpoints[other] else { continue }
                var alongside = false
                for a in slots[slot].members {
                    for b in slots[other].members where requests[a].livesAlongside(requests[b]) {
                        alongside = true
                        let low = firstHalf(requests[a].elementCount), lowOther = firstHalf(requests[b].elementCount)
                        forbidden.append((
                            midpoint - lowOther - (paddedSize(requests[a].elementCount) - low),
                            midpoint + paddedSize(requests[b].elementCount) - lowOther + low))
                    }
                }
                if alongside { neighbours.append(midpoint) }
            }
            let midpoint = Self.allowedMidpoint(from: slots[slot].below, forbidden: forbidden, staggeredFrom: neighbours)
            midpoints[slot] = midpoint
            for member in slots[slot].members {
                offsets[member] = midpoint - firstHalf(requests[member].elementCount)
                arena = max(arena, offsets[member] + paddedSize(requests[member].elementCount))
            }
        }
        return (offsets, arena)
    }

    /// The midpoint `halvesAligned` gives a slot: of the multiples of `AlignedBuffer.paddingFloats`
    /// from `lowest` up that lie in none of the open ranges `forbidden`, the lowest at least
    /// `pageDistance` within a page from every one of `neighbours`; where none of the first
    /// page's worth of them is, the lowest of those farthest from the nearest.
    static func allowedMidpoint(from lowest: Int, forbidden: [(lower: Int, upper: Int)], staggeredFrom neighbours: [Int]) -> Int {
        // The ranges joined where they overlap (two that only touch leave their common end allowed),
        // in order: the candidates only grow, so one pass over them skips every range.
        var joined: [(lower: Int, upper: Int)] = []
        for range in forbidden.sorted(by: { $0.lower < $1.lower }) {
            if let last = joined.last, range.lower < last.upper {
                joined[joined.count - 1].upper = max(last.upper, range.upper)
            } else {
                joined.append(range)
            }
        }
        var best: (midpoint: Int, distance: Int)?
        var candidate = lowest, tried = 0, next = 0
        while tried < pageFloats / AlignedBuffer.paddingFloats {
            while next < joined.count && joined[next].upper <= candidate { next += 1 }
            // Past the range that holds the candidate (each range's ends are multiples of the padding).
            if next < joined.count && joined[next].lower < candidate {
                candidate = joined[next].upper
                continue
            }
            let distance = distanceWithinPage(of: candidate, from: neighbours)
            if distance > best?.distance ?? -1 { best = (candidate, distance) }
            if distance == pageDistance { break }
            candidate += AlignedBuffer.paddingFloats
            tried += 1
        }
        return best!.midpoint
    }

    /// Floats of a tensor of `elementCount` floats below its slot's midpoint
    /// in `halvesAligned`: half of them, rounded up to a multiple of
    /// `AlignedBuffer.paddingFloats` (so that the tensor starts on 64 bytes).
    static func firstHalf(_ elementCount: Int) -> Int {
        let pad = AlignedBuffer.paddingFloats
        return (elementCount / 2 + pad - 1) / pad * pad
    }

    /// Floats a tensor of `elementCount` floats takes: rounded up to a
    /// multiple of `AlignedBuffer.paddingFloats`, and one vector more, so that
    /// a full-vector read past its end never touches a live neighbour.
    static func paddedSize(_ elementCount: Int) -> Int {
        let pad = AlignedBuffer.paddingFloats
        return (elementCount + pad - 1) / pad * pad + pad
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
            let distance = distanceWithinPage(of: start, from: starts)
            if distance > best?.distance ?? -1 { best = (start, distance) }
            if distance == pageDistance { break }
            start += AlignedBuffer.paddingFloats
        }
        return best?.start
    }

    /// How far `position` lies within a 4 KiB page from the nearest of `others`, in floats, at
    /// most `pageDistance` (far enough: `pageDistance` when `others` is empty).
    static func distanceWithinPage(of position: Int, from others: [Int]) -> Int {
        others.reduce(pageDistance) { nearest, other in
            let apart = (position - other) & (pageFloats - 1)
            return min(nearest, apart, pageFloats - apart)
        }
    }
}

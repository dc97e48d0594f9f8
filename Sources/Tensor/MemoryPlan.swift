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

    /// Greedy-by-size placement (as TFLite's arena planner does): the largest
    /// tensors are placed first, each at the lowest offset that does not
    /// collide with an already-placed tensor whose lifetime overlaps.
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
            var candidate = 0
            for other in conflicts {
                if candidate + size <= other.offset { break }
                candidate = max(candidate, other.offset + other.size)
            }
            offsets[index] = candidate
            placed.append((candidate, size, request.firstUse, request.lastUse))
            arena = max(arena, candidate + size)
        }
        self.offsets = offsets
        self.arenaCount = arena
    }
}

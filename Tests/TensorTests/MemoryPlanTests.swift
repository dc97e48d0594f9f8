import TestSupport
import Testing
@testable import Tensor

@Suite struct MemoryPlanTests {
    typealias Request = MemoryPlan.Request

    /// No two tensors with overlapping lifetimes may share a byte.
    func assertNoLiveOverlap(_ requests: [Request], _ plan: MemoryPlan) {
        for a in requests.indices {
            for b in requests.indices where a < b {
                let ra = requests[a], rb = requests[b]
                guard ra.firstUse <= rb.lastUse && rb.firstUse <= ra.lastUse else { continue }
                let aEnd = plan.offsets[a] + ra.elementCount + AlignedBuffer.paddingFloats
                let bEnd = plan.offsets[b] + rb.elementCount + AlignedBuffer.paddingFloats
                #expect(aEnd <= plan.offsets[b] || bEnd <= plan.offsets[a], "tensors \(a) and \(b) overlap")
            }
        }
        for (i, offset) in plan.offsets.enumerated() {
            #expect(offset % AlignedBuffer.paddingFloats == 0)
            #expect(offset + requests[i].elementCount <= plan.arenaCount)
        }
    }

    @Test func chainReusesMemory() {
        // A chain a -> b -> c -> d: a and c can share, b and d can share.
        let requests = (0..<4).map { Request(elementCount: 1000, firstUse: $0, lastUse: $0 + 1) }
        let plan = MemoryPlan(requests: requests)
        assertNoLiveOverlap(requests, plan)
        #expect(plan.arenaCount < 4 * 1000)
    }

    /// 30 tensors of up to 5000 floats, first used at operators 0–39, each living up to 10 more.
    func randomRequests(_ generator: inout SeededGenerator) -> [Request] {
        (0..<30).map { _ -> Request in
            let first = Int(generator.next() % 40)
            return Request(
                elementCount: Int(generator.next() % 5000),
                firstUse: first, lastUse: first + Int(generator.next() % 10))
        }
    }

    @Test func randomLifetimesNeverOverlap() {
        var generator = SeededGenerator.announced("randomLifetimesNeverOverlap")
        for _ in 0..<50 {
            let requests = randomRequests(&generator)
            assertNoLiveOverlap(requests, MemoryPlan(requests: requests))
        }
    }

    @Test func randomLifetimesNeverOverlapAtTwoThreads() {
        var generator = SeededGenerator.announced("randomLifetimesNeverOverlapAtTwoThreads")
        for _ in 0..<50 {
            let requests = randomRequests(&generator)
            let plan = MemoryPlan(requests: requests, threadCount: 2)
            assertNoLiveOverlap(requests, plan)
            // Each tensor's first half ends at one of as many midpoints as tensors live at once.
            let midpoints = Set(requests.indices.map { plan.offsets[$0] + MemoryPlan.firstHalf(requests[$0].elementCount) })
            let mostLive = (0..<50).map { use in requests.filter { $0.firstUse <= use && use <= $0.lastUse }.count }.max()!
            #expect(midpoints.count <= mostLive)
        }
    }

    @Test func twoThreadsPutEveryHalfWhereTheSameHalvesWentBefore() {
        // A chain of maps of three sizes, each read by the next operator and one residual
        // read two operators on: at any other count they go by size; at two threads every
        // tensor placed in a memory range ends its first half at that range's midpoint.
        let sizes = [6 * 1024, 1024, 6 * 1024, 1024 + 48, 6 * 1024 + 16, 1024]
        var requests = sizes.enumerated().map { Request(elementCount: $0.element, firstUse: $0.offset, lastUse: $0.offset + 1) }
        requests.append(Request(elementCount: 1024, firstUse: 1, lastUse: 3))
        let plan = MemoryPlan(requests: requests, threadCount: 2)
        assertNoLiveOverlap(requests, plan)
        let ends = requests.indices.map { plan.offsets[$0] + MemoryPlan.firstHalf(requests[$0].elementCount) }
        // Tensors 0, 2 and 4 take turns with each other, 1, 3 and 5 likewise; the residual
        // lives alongside 1 to 3, so it needs a third range.
        #expect(ends[0] == ends[2] && ends[2] == ends[4])
        #expect(ends[1] == ends[3] && ends[3] == ends[5])
        #expect(Set([ends[0], ends[1], ends[6]]).count == 3)
        // Ranges whose tensors live together have their midpoints apart within a page, so that
        // an operator's input and output of one size start apart too: three eighths of a page
        // for the first two; three cannot all be that far apart, the third is over a quarter.
        #expect(pageDistance(ends[0], ends[1]) >= 3 * MemoryPlan.pageFloats / 8)
        #expect(pageDistance(ends[0], ends[6]) > MemoryPlan.pageFloats / 4)
        #expect(pageDistance(ends[1], ends[6]) > MemoryPlan.pageFloats / 4)
        // Other thread counts keep the placement by size, which is smaller here.
        for threads in [1, 3, 4] {
            let bySize = MemoryPlan(requests: requests, threadCount: threads)
            #expect(bySize.offsets == MemoryPlan(requests: requests).offsets)
            #expect(bySize.arenaCount <= plan.arenaCount)
        }
    }

    /// How far apart two starts are within a 4 KiB page, in floats (0 ... 512).
    func pageDistance(_ a: Int, _ b: Int) -> Int {
        let apart = (a - b) & (MemoryPlan.pageFloats - 1)
        return min(apart, MemoryPlan.pageFloats - apart)
    }

    @Test func tensorsOfWholePagesLiveTogetherStartApartInAPage() {
        // A chain of maps whose sizes are whole pages, each read by the next operator: placed
        // back to back, every one would start at the same offset in a page as its neighbour.
        let requests = (0..<6).map { Request(elementCount: 8 * MemoryPlan.pageFloats, firstUse: $0, lastUse: $0 + 1) }
        let plan = MemoryPlan(requests: requests)
        assertNoLiveOverlap(requests, plan)
        for i in 1..<requests.count {
            #expect(pageDistance(plan.offsets[i], plan.offsets[i - 1]) >= 3 * MemoryPlan.pageFloats / 8)
        }
        // Two tensors still take turns: the arena holds two maps and the stagger, not six.
        #expect(plan.arenaCount <= 2 * (8 + 1) * MemoryPlan.pageFloats)
    }

    @Test func allowedMidpointSkipsForbiddenRangesThenStaggers() {
        let page = MemoryPlan.pageFloats, step = AlignedBuffer.paddingFloats
        // Nothing in the way: the lowest position.
        #expect(MemoryPlan.allowedMidpoint(from: 32, forbidden: [], staggeredFrom: []) == 32)
        // Open ranges: their ends are allowed, what lies strictly inside is not.
        #expect(MemoryPlan.allowedMidpoint(from: 32, forbidden: [(16, 112)], staggeredFrom: []) == 112)
        #expect(MemoryPlan.allowedMidpoint(from: 32, forbidden: [(32, 112)], staggeredFrom: []) == 32)
        // Two ranges one after the other are both skipped.
        #expect(MemoryPlan.allowedMidpoint(from: 0, forbidden: [(200, 400), (-8, 208)], staggeredFrom: []) == 400)
        // A neighbour at 0: the first allowed position three eighths of a page from it.
        #expect(MemoryPlan.allowedMidpoint(from: 0, forbidden: [], staggeredFrom: [0]) == 3 * page / 8)
        #expect(MemoryPlan.allowedMidpoint(from: 0, forbidden: [(0, 3 * page / 8 + step)], staggeredFrom: [0])
            == 3 * page / 8 + step)
    }

    @Test func staggeredStartTakesTheLowestPositionFarEnough() {
        let page = MemoryPlan.pageFloats, step = AlignedBuffer.paddingFloats
        // Nothing to keep away from: the gap's start.
        #expect(MemoryPlan.staggeredStart(in: 0..<Int.max, size: 100, from: []) == 0)
        // One start at 0: the first position three eighths of a page away.
        #expect(MemoryPlan.staggeredStart(in: 0..<Int.max, size: 100, from: [0]) == 3 * page / 8)
        #expect(MemoryPlan.staggeredStart(in: page..<Int.max, size: 100, from: [3 * page]) == page + 3 * page / 8)
        // Starts a quarter page apart all round: no position is that far from all four; the
        // farthest are an eighth of a page from the nearest, and the lowest of them is taken.
        let quarters = [0, page / 4, page / 2, 3 * page / 4]
        #expect(MemoryPlan.staggeredStart(in: 0..<Int.max, size: 100, from: quarters) == page / 8)
        // A gap too small for the tensor; a gap with room for two positions: the farther one.
        #expect(MemoryPlan.staggeredStart(in: 0..<99, size: 100, from: [0]) == nil)
        #expect(MemoryPlan.staggeredStart(in: 0..<(100 + step), size: 100, from: [0]) == step)
    }
}

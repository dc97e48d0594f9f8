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

    @Test func randomLifetimesNeverOverlap() {
        var generator = SeededGenerator.announced("randomLifetimesNeverOverlap")
        for _ in 0..<50 {
            let requests = (0..<30).map { _ -> Request in
                let first = Int(generator.next() % 40)
                return Request(
                    elementCount: Int(generator.next() % 5000),
                    firstUse: first, lastUse: first + Int(generator.next() % 10))
            }
            assertNoLiveOverlap(requests, MemoryPlan(requests: requests))
        }
    }
}

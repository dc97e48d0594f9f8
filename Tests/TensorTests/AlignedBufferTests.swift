#if canImport(Glibc)
import Glibc
#endif
import Tensor
import Testing

@Suite struct AlignedBufferTests {
    /// Sizes below, at and above `mappingThreshold` (heap and mapped storage).
    static let counts = [0, 1, 17, AlignedBuffer.mappingThreshold / 4 - 16, AlignedBuffer.mappingThreshold / 4, 300_001]

    @Test(arguments: counts, [false, true])
    func storageIsAlignedPaddedAndZeroed(count: Int, populated: Bool) {
        let buffer = AlignedBuffer(count: count, populated: populated)
        #expect(buffer.count == count)
        #expect(buffer.capacity >= max(count, AlignedBuffer.paddingFloats))
        #expect(buffer.capacity % AlignedBuffer.paddingFloats == 0)
        #expect(Int(bitPattern: buffer.baseAddress) % AlignedBuffer.alignment == 0)
        #expect((0..<buffer.capacity).allSatisfy { buffer.baseAddress[$0] == 0 })
        // Every float, padding included, can be written and read back.
        for i in 0..<buffer.capacity { buffer.baseAddress[i] = Float(i) }
        #expect((0..<buffer.capacity).allSatisfy { buffer.baseAddress[$0] == Float($0) })
    }

    @Test func copiesValues() {
        let values = (0..<(AlignedBuffer.mappingThreshold / 2)).map(Float.init)
        #expect(AlignedBuffer(values).toArray() == values)
    }

    #if os(Linux)
    /// A populated mapped buffer's pages are all resident before anything touches them; an
    /// unpopulated one's are not (`mincore`).
    @Test(arguments: [false, true])
    func populatedPagesAreResidentAtOnce(populated: Bool) throws {
        let buffer = AlignedBuffer(count: 1 << 20, populated: populated)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let bytes = buffer.capacity * MemoryLayout<Float>.stride
        var residency = [UInt8](repeating: 0, count: (bytes + pageSize - 1) / pageSize)
        #expect(mincore(UnsafeMutableRawPointer(buffer.baseAddress), bytes, &residency) == 0)
        let resident = residency.filter { $0 & 1 == 1 }.count
        #expect(resident == (populated ? residency.count : 0), "\(resident) of \(residency.count) pages resident")
    }
    #endif
}

import Tensor
import Testing

@Suite struct AlignedBufferTests {
    /// Sizes below, at and above `mappingThreshold` (heap and mapped storage).
    static let counts = [0, 1, 17, AlignedBuffer.mappingThreshold / 4 - 16, AlignedBuffer.mappingThreshold / 4, 300_001]

    @Test(arguments: counts)
    func storageIsAlignedPaddedAndZeroed(count: Int) {
        let buffer = AlignedBuffer(count: count)
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
}

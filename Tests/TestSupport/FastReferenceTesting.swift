import Tensor
import Testing

/// A float buffer whose `guardCount` floats past `count` hold a sentinel, to catch writes past
/// the end. It is 64-byte aligned and padded like a planned tensor, so kernels may read one
/// vector past the end.
public final class GuardedBuffer {
    public static let guardCount = 64
    public static let sentinel: Float = -12345.5
    public let count: Int
    public let storage: AlignedBuffer

    public init(count: Int) {
        self.count = count
        storage = AlignedBuffer(count: count + Self.guardCount)
        for i in count..<(count + Self.guardCount) { storage.baseAddress[i] = Self.sentinel }
    }

    public convenience init(_ values: [Float]) {
        self.init(count: values.count)
        for (i, v) in values.enumerated() { storage.baseAddress[i] = v }
    }

    public var pointer: UnsafeMutablePointer<Float> { storage.baseAddress }
    public var values: [Float] { Array(UnsafeBufferPointer(start: storage.baseAddress, count: count)) }
    public var guardIntact: Bool {
        (count..<(count + Self.guardCount)).allSatisfy { storage.baseAddress[$0] == Self.sentinel }
    }
}

/// The fast-against-reference tester: runs `reference` once and `fast` once for each of
/// `threadCounts` (1, 2, 3 and 7 threads unless given), each into its own ``GuardedBuffer`` of
/// `outputCount` floats pre-filled with a NaN whose payload no kernel computes, and expects every
/// fast output to be bit-identical to the reference (so every element the reference writes is
/// written, with the same bits, for every thread count) and nothing written past the end.
/// `context` (which includes the seed) is printed with any failure.
///
/// - Parameters:
///   - reference: writes the reference output to the pointer it is given.
///   - fast: writes the fast output with the given number of threads to the pointer.
public func expectFastMatchesReference(
    outputCount count: Int, threadCounts: [Int] = [1, 2, 3, 7],
    reference: (UnsafeMutablePointer<Float>) -> Void,
    fast: (_ threads: Int, UnsafeMutablePointer<Float>) -> Void,
    _ context: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
) {
    // A NaN with a payload no kernel computes, so an unwritten element shows.
    let unwritten = Float(bitPattern: 0x7FC0_1234)
    func output(_ body: (UnsafeMutablePointer<Float>) -> Void) -> GuardedBuffer {
        let output = GuardedBuffer(count: count)
        for i in 0..<count { output.pointer[i] = unwritten }
        body(output.pointer)
        return output
    }
    let expected = output(reference).values.map(\.bitPattern)
    for threads in threadCounts {
        let result = output { fast(threads, $0) }
        #expect(result.guardIntact, "wrote past the end with \(threads) threads: \(context())", sourceLocation: sourceLocation)
        let values = result.values.map(\.bitPattern)
        let differing = values.indices.filter { values[$0] != expected[$0] }
        let first = differing.first.map {
            "first at \($0): fast \(Float(bitPattern: values[$0])), reference \(Float(bitPattern: expected[$0]))"
        } ?? ""
        #expect(
            differing.isEmpty,
            "\(differing.count) of \(count) elements differ with \(threads) threads, \(first): \(context())",
            sourceLocation: sourceLocation)
    }
}

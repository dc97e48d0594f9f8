#if canImport(Glibc)
import Glibc
#endif
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

/// The fast-against-reference tester: runs `reference` once into a ``GuardedBuffer`` of
/// `outputCount` floats pre-filled with a NaN whose payload no kernel computes, then checks `fast`
/// against it with ``expectFastOutput(outputCount:equals:name:threadCounts:fast:_:sourceLocation:)``:
/// every fast output bit-identical to the reference for every thread count (so every element the
/// reference writes is written, with the same bits) and nothing written past the end.
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
    let expected = GuardedBuffer(count: count)
    for i in 0..<count { expected.pointer[i] = unwrittenElement }
    reference(expected.pointer)
    expectFastOutput(
        outputCount: count, equals: expected.values, name: "reference", threadCounts: threadCounts, fast: fast,
        context(), sourceLocation: sourceLocation)
}

/// Runs `fast` once for each of `threadCounts` (1, 2, 3 and 7 threads unless given), each into
/// its own ``GuardedBuffer`` of `outputCount` floats pre-filled with a NaN whose payload no kernel
/// computes, and expects every output to be bit-identical to `expected` (which `name` names in
/// messages: "reference", "XNNPACK") and nothing written past the end. `context` (which includes
/// the seed) is printed with any failure.
public func expectFastOutput(
    outputCount count: Int, equals expected: [Float], name: String, threadCounts: [Int] = [1, 2, 3, 7],
    fast: (_ threads: Int, UnsafeMutablePointer<Float>) -> Void,
    _ context: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
) {
    precondition(expected.count == count, "\(name) has \(expected.count) elements, not \(count)")
    for threads in threadCounts {
        let result = GuardedBuffer(count: count)
        result.pointer.update(repeating: unwrittenElement, count: count)
        fast(threads, result.pointer)
        #expect(result.guardIntact, "wrote past the end with \(threads) threads: \(context())", sourceLocation: sourceLocation)
        // One memcmp first: an element-by-element comparison is slow in the debug build the tests run in.
        let identical = count == 0 || expected.withUnsafeBytes {
            memcmp($0.baseAddress!, result.pointer, count * MemoryLayout<Float>.size) == 0
        }
        if identical { continue }
        let expectedBits = expected.map(\.bitPattern)
        let values = result.values.map(\.bitPattern)
        let differing = values.indices.filter { values[$0] != expectedBits[$0] }
        let first = differing.first.map {
            "first at \($0): fast \(Float(bitPattern: values[$0])), \(name) \(Float(bitPattern: expectedBits[$0]))"
        } ?? ""
        Issue.record(
            "\(differing.count) of \(count) elements differ with \(threads) threads, \(first): \(context())",
            sourceLocation: sourceLocation)
    }
}

/// What outputs are filled with before a kernel runs: a NaN with a payload no kernel computes, so
/// an unwritten element shows.
private let unwrittenElement = Float(bitPattern: 0x7FC0_1234)

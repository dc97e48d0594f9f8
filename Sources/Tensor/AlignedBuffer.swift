#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffer of `Float` aligned to `AlignedBuffer.alignment` bytes and
/// padded at the tail to a whole number of `AlignedBuffer.paddingFloats`
/// elements, so SIMD loads of a full vector past the last element stay inside
/// the allocation. The padding is zero-initialised.
///
/// A buffer of `mappingThreshold` bytes or more (packed weights, activation
/// arenas) is mapped from the system directly: its pages are zeroed by the
/// kernel when first touched — a page never written costs no memory — and
/// given back to the system when the buffer is freed, whatever the heap
/// allocator keeps. Smaller ones come from the heap, zeroed.
///
/// The buffer owns its memory, or keeps alive the owner of memory it
/// borrows (`init(borrowing:count:owner:)`); pointers from `baseAddress` are
/// valid for its lifetime. It is not synchronised: concurrent writers must
/// write disjoint ranges.
public final class AlignedBuffer: @unchecked Sendable {
    /// Byte alignment of the storage (a cache line, enough for AVX-512 loads).
    public static let alignment = 64
    /// The tail is padded to a multiple of this many floats (one `SIMD16<Float>`).
    public static let paddingFloats = 16
    /// Buffers of at least this many bytes (64 KiB) are mapped, not taken from the heap.
    public static let mappingThreshold = 64 * 1024

    /// Number of usable elements.
    public let count: Int
    /// Number of allocated elements (`count` rounded up, at least one vector).
    public let capacity: Int
    public let baseAddress: UnsafeMutablePointer<Float>
    /// Where the storage comes from.
    private let origin: Origin

    /// Who allocated the storage, and so who frees it.
    private enum Origin {
        /// The heap (`deinit` deallocates it).
        case heap
        /// A mapping of its own, `capacity` floats, page-aligned (`deinit` unmaps it).
        case mapping
        /// Memory of another object's, which the buffer keeps alive.
        case borrowed(AnyObject)
    }

    /// Allocates `count` zeroed floats. `count` must already be validated
    /// (e.g. via `TensorShape`); it is capped at `TensorShape.maxElements`.
    /// With `populated`, a mapped buffer's pages are made resident (and
    /// zeroed) at once, in one system call, rather than one fault at a time
    /// as they are first touched: for a buffer whose every page is about to
    /// be written (packed weights), which saves about a page fault's cost per
    /// 4 KiB; an arena, whose pages one model may never touch, is not.
    public init(count: Int, populated: Bool = false) {
        precondition(count >= 0 && count <= TensorShape.maxElements, "unvalidated buffer size \(count)")
        self.count = count
        self.capacity = Self.capacityFor(count: count)
        let byteCount = capacity * MemoryLayout<Float>.stride
        if byteCount >= Self.mappingThreshold {
            // Anonymous pages read as zeros; page alignment exceeds `alignment`.
            let flags = MAP_PRIVATE | MAP_ANON | (populated ? Self.populateFlag : 0)
            let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, flags, -1, 0)
            guard let mapped, mapped != MAP_FAILED else {
                fatalError("cannot map \(byteCount) bytes: out of memory")
            }
            self.baseAddress = mapped.assumingMemoryBound(to: Float.self)
            self.origin = .mapping
        } else {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: Self.alignment)
            raw.initializeMemory(as: Float.self, repeating: 0, count: capacity)
            self.baseAddress = raw.assumingMemoryBound(to: Float.self)
            self.origin = .heap
        }
    }

    /// A buffer of `count` floats over memory that `owner` keeps valid (a
    /// region of a mapped cache file): `start` must be aligned to
    /// `alignment` and hold `capacityFor(count:)` floats, the tail included.
    /// The memory may be read-only: such a buffer is for reading.
    public init(borrowing start: UnsafeMutablePointer<Float>, count: Int, owner: AnyObject) {
        precondition(count >= 0 && count <= TensorShape.maxElements, "unvalidated buffer size \(count)")
        precondition(Int(bitPattern: start) % Self.alignment == 0, "borrowed memory is not aligned")
        self.count = count
        self.capacity = Self.capacityFor(count: count)
        self.baseAddress = start
        self.origin = .borrowed(owner)
    }

    /// The floats a buffer of `count` usable ones allocates: `count` rounded
    /// up to a whole number of `paddingFloats`, at least one vector.
    /// `count` is at most `TensorShape.maxElements`.
    public static func capacityFor(count: Int) -> Int {
        max((count + paddingFloats - 1) / paddingFloats * paddingFloats, paddingFloats)
    }

    /// `mmap`'s flag that makes a mapping's pages resident at once (Linux's
    /// `MAP_POPULATE`; elsewhere none, and pages fault in as they are touched).
    private static var populateFlag: Int32 {
        #if os(Linux)
        return MAP_POPULATE
        #else
        return 0
        #endif
    }

    /// Copies `values` into a new buffer.
    public convenience init(_ values: [Float]) {
        self.init(count: values.count)
        values.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { baseAddress.update(from: base, count: values.count) }
        }
    }

    deinit {
        switch origin {
        case .mapping: munmap(baseAddress, capacity * MemoryLayout<Float>.stride)
        case .heap: UnsafeMutableRawPointer(baseAddress).deallocate()
        case .borrowed: break  // the owner frees it
        }
    }

    /// The usable elements as a buffer pointer.
    public var buffer: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: baseAddress, count: count)
    }

    /// A copy of the usable elements.
    public func toArray() -> [Float] { Array(buffer) }
}

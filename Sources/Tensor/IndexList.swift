/// Bytes that never change for as long as their object lives (a model
/// file's), so that values made from them can read them in place rather than
/// from a copy: `withUnsafeBytes` gives the same bytes on every call.
public protocol ImmutableBytes: AnyObject, Sendable {
    /// Calls `body` with all the bytes; the pointer is valid only inside `body`.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

/// A list of integers read as `Int32`: either stored in a file as it stores
/// them (little-endian unsigned 8- or 16-bit or signed 32-bit integers, as a
/// TFLite sparse tensor's segment and index vectors are) and read in place,
/// or an array of its own. A sparse tensor's index lists hold hundreds of
/// thousands of entries: read in place, a model load neither decodes nor
/// copies them.
///
/// Equality and hashing compare the values, whatever the storage.
public struct IndexList: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// How each stored integer is encoded.
    public enum Width: Int, Sendable {
        case uint8 = 1, uint16 = 2, int32 = 4
    }

    private enum Storage: @unchecked Sendable {
        case array([Int32])
        /// `count` integers of `width` from byte `offset` of `owner`'s bytes (checked to fit).
        case stored(owner: any ImmutableBytes, offset: Int, width: Width)
    }

    private let storage: Storage
    /// Number of integers.
    public let count: Int
    /// `bounds()`, found once when the list is made: the reader's and the
    /// kernels' checks of one list all ask for it.
    private let smallestAndLargest: ClosedRange<Int32>?

    /// A list of `values`.
    public init(_ values: [Int32]) {
        storage = .array(values)
        count = values.count
        smallestAndLargest = values.withUnsafeBytes { bytes in
            Self.bounds(of: Elements(base: bytes.baseAddress, width: .int32, count: values.count))
        }
    }

    public init(arrayLiteral values: Int32...) { self.init(values) }

    /// The `count` integers of `width` stored from byte `offset` of `owner`'s
    /// bytes, read in place; nil when they do not lie inside the bytes.
    public init?(stored owner: any ImmutableBytes, offset: Int, count: Int, width: Width) {
        let fits = owner.withUnsafeBytes { bytes in
            let (size, overflow) = count.multipliedReportingOverflow(by: width.rawValue)
            return offset >= 0 && count >= 0 && !overflow && size <= bytes.count - offset
        }
        guard fits else { return nil }
        storage = .stored(owner: owner, offset: offset, width: width)
        self.count = count
        smallestAndLargest = owner.withUnsafeBytes { bytes in
            Self.bounds(of: Elements(base: bytes.baseAddress.map { $0 + offset }, width: width, count: count))
        }
    }

    /// The integers as the loops that read them all see them: a pointer and
    /// a width, valid only inside `withElements`.
    public struct Elements {
        @usableFromInline let base: UnsafeRawPointer?
        @usableFromInline let width: Width
        /// Number of integers.
        public let count: Int

        @usableFromInline init(base: UnsafeRawPointer?, width: Width, count: Int) {
            self.base = base
            self.width = width
            self.count = count
        }

        /// Integer `index` (`0 ..< count`, checked).
        @inlinable @inline(__always)
        public subscript(index: Int) -> Int32 {
            precondition(index >= 0 && index < count, "index \(index) outside 0..<\(count)")
            let base = self.base.unsafelyUnwrapped
            switch width {
            case .uint8: return Int32(base.load(fromByteOffset: index, as: UInt8.self))
            case .uint16: return Int32(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: index &* 2, as: UInt16.self)))
            case .int32: return Int32(littleEndian: base.loadUnaligned(fromByteOffset: index &* 4, as: Int32.self))
            }
        }
    }

    /// Calls `body` with the integers (see `Elements`).
    public func withElements<R>(_ body: (Elements) throws -> R) rethrows -> R {
        switch storage {
        case .array(let values):
            return try values.withUnsafeBytes { bytes in
                try body(Elements(base: bytes.baseAddress, width: .int32, count: count))
            }
        case .stored(let owner, let offset, let width):
            return try owner.withUnsafeBytes { bytes in
                try body(Elements(base: bytes.baseAddress.map { $0 + offset }, width: width, count: count))
            }
        }
    }

    /// Integer `index` (`0 ..< count`). For one lookup; loops over many read
    /// them inside `withElements`.
    public subscript(index: Int) -> Int32 { withElements { $0[index] } }

    /// The first integer, or nil for an empty list.
    public var first: Int32? { count > 0 ? self[0] : nil }
    /// The last integer, or nil for an empty list.
    public var last: Int32? { count > 0 ? self[count - 1] : nil }

    /// The integers as an array.
    public func toArray() -> [Int32] {
        if case .array(let values) = storage { return values }
        return withElements { elements in (0..<count).map { elements[$0] } }
    }

    /// The smallest and the largest integer, or nil for an empty list (found
    /// when the list was made).
    public func bounds() -> ClosedRange<Int32>? { smallestAndLargest }

    /// The smallest and the largest of `elements`, or nil when there are
    /// none: one pass without a branch per integer.
    private static func bounds(of elements: Elements) -> ClosedRange<Int32>? {
        guard elements.count > 0 else { return nil }
        switch elements.width {
        case .uint8: return bounds(of: elements, as: UInt8.self)
        case .uint16: return bounds(of: elements, as: UInt16.self)
        case .int32: return bounds(of: elements, as: Int32.self)
        }
    }

    /// The position of the first integer outside `range`, or nil when all
    /// lie inside: one pass over them all (`bounds()`), and a search only when
    /// one lies outside.
    public func firstIndex(outside range: Range<Int>) -> Int? {
        guard let bounds = bounds(), Int(bounds.lowerBound) < range.lowerBound || Int(bounds.upperBound) >= range.upperBound
        else { return nil }
        return withElements { elements in (0..<elements.count).first { !range.contains(Int(elements[$0])) } }
    }

    /// The position of the first integer below the one before it, or nil
    /// when none decreases.
    public func firstDecrease() -> Int? {
        withElements { elements in (1..<max(1, elements.count)).first { elements[$0] < elements[$0 - 1] } }
    }

    @inline(__always)
    private static func bounds<T: FixedWidthInteger>(of elements: Elements, as _: T.Type) -> ClosedRange<Int32> {
        let base = elements.base.unsafelyUnwrapped
        var lowest = T.max, highest = T.min
        // A while loop with wrapping steps: one exit, which the compiler vectorises.
        var index = 0
        while index < elements.count {
            let value = T(littleEndian: base.loadUnaligned(fromByteOffset: index &* MemoryLayout<T>.size, as: T.self))
            lowest = min(lowest, value)
            highest = max(highest, value)
            index &+= 1
        }
        return Int32(lowest)...Int32(highest)
    }

    /// Whether the integers of every segment `segments[s] ..< segments[s + 1]`
    /// strictly ascend; `segments` must not decrease and must end inside the
    /// list (checked).
    public func ascendsStrictly(withinSegments segments: IndexList) -> Bool {
        segments.withElements { segments in
            withElements { elements in
                switch elements.width {
                case .uint8: return Self.ascendsStrictly(elements, as: UInt8.self, within: segments)
                case .uint16: return Self.ascendsStrictly(elements, as: UInt16.self, within: segments)
                case .int32: return Self.ascendsStrictly(elements, as: Int32.self, within: segments)
                }
            }
        }
    }

    /// Counts the steps that do not climb over the whole list, in one pass
    /// without a branch per integer, then takes off those between segments
    /// (at each distinct segment start): what is left are the steps inside
    /// segments.
    @inline(__always)
    private static func ascendsStrictly<T: FixedWidthInteger>(
        _ elements: Elements, as _: T.Type, within segments: Elements
    ) -> Bool {
        guard segments.count > 1 else { return true }
        precondition(Int(segments[segments.count - 1]) <= elements.count, "segments end past the list")
        guard elements.count > 1 else { return true }
        let base = elements.base.unsafelyUnwrapped
        func value(_ index: Int) -> T {
            T(littleEndian: base.loadUnaligned(fromByteOffset: index &* MemoryLayout<T>.size, as: T.self))
        }
        let end = Int(segments[segments.count - 1])
        // A while loop with wrapping steps: one exit, which the compiler vectorises; a 32-bit
        // count (the list holds fewer than 2^32 integers) fills twice the lanes of an Int.
        var notClimbing: UInt32 = 0
        var index = 1
        while index < end {
            notClimbing &+= value(index) <= value(index &- 1) ? 1 : 0
            index &+= 1
        }
        var previousStart = 0
        for segment in 0..<(segments.count - 1) {
            let start = Int(segments[segment])
            precondition(start >= previousStart && start <= end, "segments decrease")
            if start > previousStart && start < end { notClimbing -= value(start) <= value(start - 1) ? 1 : 0 }
            previousStart = start
        }
        return notClimbing == 0
    }

    public static func == (a: IndexList, b: IndexList) -> Bool {
        guard a.count == b.count else { return false }
        return a.withElements { a in b.withElements { b in (0..<a.count).allSatisfy { a[$0] == b[$0] } } }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        withElements { elements in for index in 0..<elements.count { hasher.combine(elements[index]) } }
    }

    public var description: String { "\(toArray())" }
}

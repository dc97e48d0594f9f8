import Synchronization

/// The type of the values a ``Mask`` stores, mirroring the iOS `MaskDataType` (`MPPMaskDataType`).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum MaskDataType: Sendable, Hashable, CaseIterable {
    /// One byte per pixel, 0…255 (255 is 1.0).
    case uInt8
    /// One `Float` per pixel, 0.0…1.0.
    case float32
}

/// A single-channel mask, mirroring the iOS `Mask` (`MPPMask`).
///
/// Layout: `[height, width]` row-major, so pixel (x, y) is at index `y * width + x`; x goes
/// right and y goes down, as in the image the mask belongs to. Values are probabilities (for
/// pose segmentation: that the pixel belongs to the person), stored as ``dataType`` says and
/// readable as either type: ``uint8Data`` (0…255) and ``float32Data`` (0.0…1.0). As on iOS, the
/// first read as the other type converts the whole mask (float → byte: v × 255 truncated, after
/// clamping v to [0, 1], NaN to 0; byte → float: b / 255) and keeps the result for later reads. Unlike
/// iOS, the data are arrays, not pointers: `mask.uint8Data[i]` reads the same, with no lifetime
/// to manage; read the array once into a local before a loop over its pixels.
///
/// Pose landmarker masks are `.float32`, as MediaPipe's.
///
/// JSON keys: `width`, `height`, and the stored data as `float32Data` or `uint8Data`. Decoding
/// rejects data whose length is not `width * height`, and objects with both or neither.
///
/// Equality compares sizes, data types and stored values.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once (a
/// conversion is made once, under a lock).
public struct Mask: Codable, Sendable, Equatable {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    private let storage: MaskStorage

    /// The type of the stored values.
    public var dataType: MaskDataType {
        switch storage.values {
        case .uInt8: return .uInt8
        case .float32: return .float32
        }
    }

    /// `width * height` bytes, row-major, 0…255: the stored values, or those of a `.float32`
    /// mask converted on the first read (see the type's notes).
    public var uint8Data: [UInt8] { storage.uint8Data }

    /// `width * height` floats, row-major, 0.0…1.0: the stored values, or those of a `.uInt8`
    /// mask converted on the first read (see the type's notes).
    public var float32Data: [Float] { storage.float32Data }

    /// A `.float32` mask of `float32Data`, which must hold exactly `width * height` values (a
    /// programmer error otherwise).
    public init(width: Int, height: Int, float32Data: [Float]) {
        Self.requireCount(float32Data.count, width: width, height: height)
        self.width = width
        self.height = height
        storage = MaskStorage(.float32(float32Data))
    }

    /// A `.uInt8` mask of `uint8Data`, which must hold exactly `width * height` values (a
    /// programmer error otherwise).
    public init(width: Int, height: Int, uint8Data: [UInt8]) {
        Self.requireCount(uint8Data.count, width: width, height: height)
        self.width = width
        self.height = height
        storage = MaskStorage(.uInt8(uint8Data))
    }

    public static func == (lhs: Mask, rhs: Mask) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.storage.values == rhs.storage.values
    }

    private enum CodingKeys: String, CodingKey {
        case width, height, float32Data, uint8Data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let width = try container.decode(Int.self, forKey: .width)
        let height = try container.decode(Int.self, forKey: .height)
        let floats = try container.decodeIfPresent([Float].self, forKey: .float32Data)
        let bytes = try container.decodeIfPresent([UInt8].self, forKey: .uint8Data)
        let values: MaskValues
        let count: Int
        let key: CodingKeys
        switch (floats, bytes) {
        case (let floats?, nil):
            (values, count, key) = (.float32(floats), floats.count, .float32Data)
        case (nil, let bytes?):
            (values, count, key) = (.uInt8(bytes), bytes.count, .uint8Data)
        case (nil, nil), (.some, .some):
            throw DecodingError.dataCorruptedError(
                forKey: .float32Data, in: container,
                debugDescription: "A mask holds exactly one of float32Data and uint8Data")
        }
        guard Self.expectedCount(width: width, height: height) == count else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "Mask data holds \(count) values, not \(width) × \(height)")
        }
        self.width = width
        self.height = height
        storage = MaskStorage(values)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        switch storage.values {
        case .float32(let floats): try container.encode(floats, forKey: .float32Data)
        case .uInt8(let bytes): try container.encode(bytes, forKey: .uint8Data)
        }
    }

    private static func requireCount(_ count: Int, width: Int, height: Int) {
        precondition(
            expectedCount(width: width, height: height) == count,
            "Mask data holds \(count) values, not \(width) × \(height)")
    }

    /// `width * height`, or nil when a side is negative or the product overflows.
    private static func expectedCount(width: Int, height: Int) -> Int? {
        guard width >= 0, height >= 0 else { return nil }
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? nil : count
    }
}

/// The values of a ``Mask`` as stored.
private enum MaskValues: Sendable, Equatable {
    case uInt8([UInt8])
    case float32([Float])
}

/// A mask's stored values and, once read as the other type, their conversion.
///
/// `Sendable`: `values` is immutable, and `converted` is only touched under its `Mutex`.
private final class MaskStorage: Sendable {
    let values: MaskValues
    private let converted = Mutex<MaskValues?>(nil)

    init(_ values: MaskValues) {
        self.values = values
    }

    var uint8Data: [UInt8] {
        switch values {
        case .uInt8(let bytes):
            return bytes
        case .float32(let floats):
            return converted.withLock { cache in
                if case .uInt8(let bytes)? = cache { return bytes }
                // As MPPMask: value × 255 converted to UInt8 (truncation); clamped first (NaN
                // to 0), which MPPMask leaves to its inputs (its C conversion is undefined
                // outside 0…255).
                let bytes = floats.map { value in
                    value.isNaN ? 0 : UInt8((min(max(value, 0), 1) * 255).rounded(.towardZero))
                }
                cache = .uInt8(bytes)
                return bytes
            }
        }
    }

    var float32Data: [Float] {
        switch values {
        case .float32(let floats):
            return floats
        case .uInt8(let bytes):
            return converted.withLock { cache in
                if case .float32(let floats)? = cache { return floats }
                let floats = bytes.map { Float($0) / 255 }
                cache = .float32(floats)
                return floats
            }
        }
    }
}

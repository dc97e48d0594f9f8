/// Rules for tensor shapes and shape signatures.
enum ShapeRules {
    /// Element counts must stay below this (2^31), so that element and byte counts of any
    /// tensor fit comfortably in `Int` and in 32-bit kernel indices.
    static let elementCountLimit = 1 << 31

    /// The number of elements of `shape` (1 for a scalar). Every dimension must be >= 0 and
    /// the product below `elementCountLimit`.
    static func elementCount(of shape: [Int32], where what: @autoclosure () -> String) throws -> Int {
        if let axis = shape.firstIndex(where: { $0 < 0 }) {
            throw ModelError.invalidShape(
                what: "\(what()): dimension \(axis) is \(shape[axis]) in shape \(describe(shape)); dimensions must be >= 0")
        }
        if shape.contains(0) { return 0 }
        var count = 1
        for dimension in shape {
            // count < 2^31 (checked after each step) and dimension < 2^31: the product is < 2^62.
            count &*= Int(dimension)
            guard count < elementCountLimit else {
                throw ModelError.invalidShape(
                    what: "\(what()): shape \(describe(shape)) has 2^31 or more elements")
            }
        }
        return count
    }

    /// A shape signature must have the shape's rank, and each entry must be -1 (unknown) or
    /// equal to the shape's dimension.
    static func validateSignature(_ signature: [Int32], of shape: [Int32], where what: @autoclosure () -> String) throws {
        guard signature.count == shape.count else {
            throw ModelError.invalidShape(
                what: "\(what()): shape_signature \(describe(signature)) has rank \(signature.count) but shape \(describe(shape)) has rank \(shape.count)")
        }
        for (axis, (entry, dimension)) in zip(signature, shape).enumerated() where entry != -1 && entry != dimension {
            throw ModelError.invalidShape(
                what: "\(what()): shape_signature dimension \(axis) is \(entry) but the shape's is \(dimension) (only -1 may differ)")
        }
    }

    /// A shape for messages, cut after a few dimensions so that hostile shapes stay readable.
    static func describe(_ shape: [Int32]) -> String {
        let shown = shape.prefix(8).map(String.init).joined(separator: ", ")
        return shape.count > 8 ? "[\(shown), ... (\(shape.count) dimensions)]" : "[\(shown)]"
    }
}

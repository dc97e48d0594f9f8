import FlatBufferReader

/// How a fuzz input becomes model bytes.
///
/// About 98 % of a real model's bytes are weight values, which no load-time
/// check reads except for their count. Fuzzing the whole file would spend
/// nearly every mutation on them and copy megabytes per execution. So an
/// input names one of the real models and carries only its *structural*
/// bytes, everything outside its large weight buffers:
///
///     input = [model index: 1 byte] ++ structural bytes
///
/// Decoding lays the structural bytes back into the gaps between the model's
/// weight ranges, in order, and copies each weight range from the real model
/// whenever more structural bytes follow it. Unmutated, an input decodes to
/// the real file byte for byte; a shorter input gives a truncated file, a
/// longer one extra bytes at the end, and inserted or erased bytes shift the
/// structure that follows them, as in the file itself. An index byte of
/// `models.count` or more means the rest of the input is raw model bytes.
struct ModelSkeleton {
    /// A real model and the byte ranges of its large weight buffers, sorted.
    struct Base {
        let name: String
        let bytes: [UInt8]
        let weightRanges: [Range<Int>]
    }

    /// Buffers at least this long count as weights; smaller ones (shape,
    /// axis and padding operands, small biases) stay in the structural bytes.
    static let weightThreshold = 1024

    let models: [Base]

    /// Reads the weight ranges of each real model (which must load).
    init(models named: [(name: String, bytes: [UInt8])]) throws {
        models = try named.map { entry in
            let model = try TFLiteModel(bytes: ModelBytes(bytes: entry.bytes))
            let ranges = model.buffers.map(\.range)
                .filter { $0.count >= Self.weightThreshold }
                .sorted { $0.lowerBound < $1.lowerBound }
            return Base(name: entry.name, bytes: entry.bytes, weightRanges: ranges)
        }
    }

    /// The input that decodes to real model `index` unchanged.
    func seed(_ index: Int) -> [UInt8] {
        let base = models[index]
        var input: [UInt8] = [UInt8(index)]
        var position = 0
        for range in base.weightRanges {
            input += base.bytes[position..<range.lowerBound]
            position = range.upperBound
        }
        input += base.bytes[position...]
        return input
    }

    /// The real model an input edits, or nil for raw bytes.
    func base(of input: UnsafeBufferPointer<UInt8>) -> Base? {
        guard let first = input.first, Int(first) < models.count else { return nil }
        return models[Int(first)]
    }

    /// The length of the model `structure` (an input without its index byte) decodes to with `base`.
    private static func decodedLength(_ structure: Int, base: Base) -> Int {
        var rest = structure, position = 0
        for range in base.weightRanges {
            let gap = range.lowerBound - position
            guard rest > gap else { return position + rest }
            rest -= gap
            position = range.upperBound
        }
        return position + rest
    }

    /// Writes the model bytes `input` stands for into `output`.
    ///
    /// `output` must be empty or hold the result of the previous call: while
    /// successive inputs edit the same real model, only their structural
    /// bytes and any newly uncovered weight bytes are written, not the whole
    /// multi-megabyte file.
    func decode(_ input: UnsafeBufferPointer<UInt8>, into output: inout DecodedModel) {
        guard let first = input.first, Int(first) < models.count else {
            output.index = nil
            output.bytes.removeAll(keepingCapacity: true)
            output.bytes.append(contentsOf: input.dropFirst())
            return
        }
        let index = Int(first), base = models[index]
        if output.index != index {
            output.index = index
            output.bytes.removeAll(keepingCapacity: true)
        }
        // Invariant: inside `output.bytes`, every weight range holds the base's bytes.
        let structure = input.dropFirst()
        let length = Self.decodedLength(structure.count, base: base)
        if length < output.bytes.count {
            output.bytes.removeLast(output.bytes.count - length)
        } else if length > output.bytes.count {
            let reused = min(output.bytes.count, base.bytes.count)
            output.bytes.append(contentsOf: base.bytes[reused..<min(length, base.bytes.count)])
            output.bytes.append(contentsOf: repeatElement(0, count: length - output.bytes.count))
        }
        output.bytes.withUnsafeMutableBufferPointer { bytes in
            var source = structure.startIndex, position = 0
            func copy(_ count: Int) {
                // count ≤ the bytes left in both: decodedLength made room for every structural byte.
                UnsafeMutableRawPointer(bytes.baseAddress! + position)
                    .copyMemory(from: input.baseAddress! + source, byteCount: count)
                source += count
                position += count
            }
            for range in base.weightRanges where source < structure.endIndex {
                copy(min(range.lowerBound - position, structure.endIndex - source))
                if source < structure.endIndex { position = range.upperBound }
            }
            copy(structure.endIndex - source)
        }
    }
}

/// The model bytes of the last decoded input and the real model they edit.
struct DecodedModel {
    var index: Int?
    var bytes: [UInt8] = []
}

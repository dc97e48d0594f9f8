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

    /// Writes the model bytes `input` stands for into `output` (replacing its contents).
    func decode(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        output.removeAll(keepingCapacity: true)
        guard let base = base(of: input) else {
            output.append(contentsOf: input.dropFirst())
            return
        }
        var rest = input.dropFirst()
        var position = 0
        for range in base.weightRanges {
            let gap = range.lowerBound - position
            output.append(contentsOf: rest.prefix(gap))
            rest = rest.dropFirst(gap)
            guard !rest.isEmpty else { return }
            output.append(contentsOf: base.bytes[range])
            position = range.upperBound
        }
        output.append(contentsOf: rest)
    }
}

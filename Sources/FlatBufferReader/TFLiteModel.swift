/// A verified TensorFlow Lite model (`.tflite`, schema version 3, file identifier `TFL3`).
///
/// Loading runs three stages, each of which throws `ModelError` rather than trapping:
/// 1. the verifier walks every table, vector and string reachable from the root of the schema
///    subset this module reads, checking bounds, alignment, vtables, enum ranges and union
///    consistency within `VerifierLimits`;
/// 2. the decoder copies the graph description (operator codes, tensors, operators, options)
///    into the Swift values below, applying schema defaults to absent fields;
/// 3. the validator checks indices, buffer sizes and the dataflow graph.
///
/// Weights are never copied: `buffers` records byte ranges, read through `withBufferBytes`.
public struct TFLiteModel: Sendable {
    /// The file identifier at bytes 4..<8.
    public static let fileIdentifier: [UInt8] = Array("TFL3".utf8)

    /// Schema version (always 3 once loaded).
    public let version: UInt32
    public let description: String?
    public let operatorCodes: [OperatorCode]
    /// Subgraph 0 is the main graph; there is at least one.
    public let subgraphs: [SubGraph]
    /// Byte ranges of the model's buffers; index 0 is the empty sentinel.
    public let buffers: [BufferRef]
    public let metadata: [Metadata]
    /// The bytes the model was read from; buffers point into them.
    public let bytes: ModelBytes

    /// Verifies, decodes and validates the model in `bytes`.
    public init(bytes: ModelBytes, limits: VerifierLimits = .default) throws {
        let decoded = try bytes.withUnsafeBytes { raw in
            let view = try FlatBufferView(raw)
            var verifier = Verifier(view: view, limits: limits)
            let root = try verifier.verifyRoot(TFLiteSchema.model, identifier: Self.fileIdentifier)
            return try ModelDecoder(view: view, bytes: bytes, rootPosition: root).decode()
        }
        try ModelValidator.validate(decoded)
        version = decoded.version
        description = decoded.description
        operatorCodes = decoded.operatorCodes
        subgraphs = decoded.subgraphs
        buffers = decoded.buffers
        metadata = decoded.metadata
        self.bytes = bytes
    }

    /// Maps the file at `path` read-only and loads the model from it.
    public init(contentsOfFile path: String, limits: VerifierLimits = .default) throws {
        try self.init(bytes: ModelBytes(contentsOfFile: path), limits: limits)
    }

    /// Calls `body` with the bytes of buffer `index` (the inline data vector, or the external
    /// offset/size range relative to the file start); empty if the buffer has none. The bytes
    /// are little-endian and row-major in the owning tensor's shape. Their start has no
    /// guaranteed alignment (converters do not always honour the schema's 16-byte request),
    /// so read them with `loadUnaligned`. The pointer is valid only inside `body`.
    ///
    /// - Precondition: `index` is in `buffers.indices` (tensor buffer indices are validated at load).
    public func withBufferBytes<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(buffers.indices.contains(index), "buffer index \(index) outside 0..<\(buffers.count)")
        let range = buffers[index].range
        return try bytes.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[range]))
        }
    }

    /// True when `tensor` has constant data (a non-empty buffer).
    public func isConstant(_ tensor: TensorInfo) -> Bool {
        buffers.indices.contains(tensor.buffer) && !buffers[tensor.buffer].range.isEmpty
    }
}

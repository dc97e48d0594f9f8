import FlatBufferReader
import Kernels
import Tensor

/// The constant tensors of a subgraph, with the load-time-only operators
/// (DEQUANTIZE of float16 weights, DENSIFY of sparse weights) folded into
/// them so that `invoke` never runs them.
///
/// Float values are decoded from the model's buffers when an operator asks
/// for them (`value(of:readsFloats:)`), not when the subgraph is read: a load
/// holds the decoded floats of one operator at a time, which its kernel packs
/// and lets go, rather than a float32 copy of every weight of the model at
/// once; float16 weights are not even decoded, but read in place while their
/// kernel is prepared (`withValues(of:readsFloats:_:)`). Everything that can
/// reject a constant is still checked up front — its type when the subgraph is
/// read, a sparse tensor's description and value count when its DENSIFY is
/// folded — so decoding later does not fail on a model that passed those
/// checks. Int32 constants (shapes, axes, paddings) are small and decoded at
/// once.
struct ConstantTensors {
    /// Where the values of a folded constant come from.
    private enum Source {
        /// Tensor `tensor`'s own buffer: `count` float32 values, or float16
        /// ones widened to float32 exactly when read.
        case floats(tensor: Int, count: Int)
        /// Int32 values, already decoded.
        case int32([Int32])
        /// The dense values that a DENSIFY operator rebuilds from sparse tensor
        /// `sparse`, as `layout` (checked when the DENSIFY was folded) places
        /// them. The layout shares its index lists with the decoded model.
        case densified(sparse: Int, layout: SparseTensorLayout)
    }

    private let model: TFLiteModel
    private let subgraph: SubGraph
    private let shapes: [TensorShape]
    /// Each constant with a dense value, by tensor index.
    private var sources: [Int: Source] = [:]
    /// Sparse constants waiting for their DENSIFY operator: their stored value count, by tensor index.
    private var sparse: [Int: Int] = [:]

    /// Reads the type of every tensor that has a non-empty buffer and decodes the int32 ones.
    /// Throws `InterpreterError.unsupportedTensorType` for any other type than float32,
    /// float16 and int32, and for a sparse int32 tensor.
    init(model: TFLiteModel, subgraph: SubGraph, shapes: [TensorShape]) throws {
        self.model = model
        self.subgraph = subgraph
        self.shapes = shapes
        for (index, tensor) in subgraph.tensors.enumerated() where tensor.buffer > 0 {
            let source: Source? = try model.withBufferBytes(tensor.buffer) { bytes in
                guard bytes.count > 0 else { return nil }
                switch tensor.type {
                case .float32: return .floats(tensor: index, count: bytes.count / 4)
                case .float16: return .floats(tensor: index, count: bytes.count / 2)
                case .int32 where tensor.sparsity == nil:
                    return .int32(Self.readLittleEndian(bytes, as: UInt32.self).map { Int32(bitPattern: $0) })
                case .int32:
                    throw InterpreterError.unsupportedTensorType(tensor: tensor.name, type: "sparse \(tensor.type)")
                default:
                    throw InterpreterError.unsupportedTensorType(tensor: tensor.name, type: "\(tensor.type)")
                }
            }
            guard case .floats(_, let count)? = source else {
                if let source { sources[index] = source }
                continue
            }
            if tensor.sparsity != nil {
                sparse[index] = count
            } else {
                sources[index] = source
            }
        }
    }

    /// Whether tensor `index` is a constant (dense or still sparse).
    func isConstant(_ index: Int) -> Bool { sources[index] != nil || sparse[index] != nil }

    /// Whether tensor `index` is a constant with a dense value (not a sparse
    /// one still waiting for its DENSIFY).
    func hasValue(_ index: Int) -> Bool { sources[index] != nil }

    /// The number of float values of constant `index`, decoded or not; nil
    /// for int32 constants and tensors without a dense value.
    func floatCount(of index: Int) -> Int? {
        switch sources[index] {
        case .floats(_, let count)?: return count
        case .densified(_, let layout)?: return layout.denseCount
        case .int32?, nil: return nil
        }
    }

    /// The value of constant `index`, nil for a tensor without a dense value.
    /// Float values are decoded (float16 widened, sparse ones densified, or
    /// given as `ConstantData.compressedRows` when stored so) when
    /// `readsFloats` is true, and given as `ConstantData.unreadFloat32` of
    /// their count otherwise. Each call decodes anew: the caller holds the
    /// result only as long as it needs it.
    func value(of index: Int, readsFloats: Bool = true) throws -> ConstantData? {
        switch sources[index] {
        case nil:
            return nil
        case .int32(let values)?:
            return .int32(values)
        case .floats(let tensor, let count)?:
            return readsFloats ? .float32(floats(of: tensor)) : .unreadFloat32(count: count)
        case .densified(let sparseTensor, let layout)?:
            guard readsFloats else { return .unreadFloat32(count: layout.denseCount) }
            // Weights stored as compressed rows are packed from their stored values.
            if let rows = compressedRows(of: sparseTensor, layout: layout) { return .compressedRows(rows) }
            return .float32(Densify.densify(values: floats(of: sparseTensor), layout: layout))
        }
    }

    /// The value of constant `index` as compressed rows, when a DENSIFY
    /// rebuilds it from a sparse tensor stored that way (see
    /// `CompressedRowFilter`); nil for any other tensor. Its values are
    /// decoded when its reader asks for them, anew each time, like
    /// `value(of:readsFloats:)`'s.
    func compressedRows(of index: Int) -> CompressedRowFilter? {
        guard case .densified(let sparseTensor, let layout)? = sources[index] else { return nil }
        return compressedRows(of: sparseTensor, layout: layout)
    }

    /// Sparse tensor `sparseTensor`, placed by `layout`, as compressed rows
    /// reading their values from it; nil when it is not stored so.
    private func compressedRows(of sparseTensor: Int, layout: SparseTensorLayout) -> CompressedRowFilter? {
        guard layout.isCompressedRows else { return nil }
        let (model, tensor) = (model, subgraph.tensors[sparseTensor])
        return CompressedRowFilter(layout: layout, reading: { Self.floats(of: tensor, in: model) })
    }

    /// Calls `body` with `value(of:readsFloats:)` of each of `indices`, in
    /// order, except that a float16 constant is given as it is stored
    /// (`ConstantData.float16`, read in place, valid only inside `body`), not
    /// widened to a float32 copy.
    func withValues<Result>(
        of indices: [Int], readsFloats: Bool, _ body: ([ConstantData?]) throws -> Result
    ) throws -> Result {
        var values: [ConstantData?] = []
        values.reserveCapacity(indices.count)
        /// Adds the values from `indices[position]` on, then calls `body`: inside the
        /// borrowed buffers' scopes.
        func collect(from position: Int) throws -> Result {
            guard position < indices.count else { return try body(values) }
            if readsFloats, case .floats(let tensorIndex, _)? = sources[indices[position]],
               subgraph.tensors[tensorIndex].type == .float16 {
                return try model.withBufferBytes(subgraph.tensors[tensorIndex].buffer) { bytes in
                    // The verifier checked that the buffer holds whole halves.
                    values.append(.float16(Float16Bytes(bytes)))
                    return try collect(from: position + 1)
                }
            }
            values.append(try value(of: indices[position], readsFloats: readsFloats))
            return try collect(from: position + 1)
        }
        return try collect(from: 0)
    }

    /// Folds DEQUANTIZE and DENSIFY operators whose input is constant.
    /// Returns true if `op` was folded (and needs no kernel at run time).
    /// A DENSIFY's sparse description and value count are checked here
    /// (`SparseTensorLayout`), once for every later use, and so is, for
    /// both, that the output's shape holds as many values as the input's:
    /// the output's readers size their copies by its shape.
    /// - Throws: `InterpreterError.invalidOperator` where they do not.
    mutating func fold(_ op: OperatorInfo, builtin: BuiltinOperator, index: Int) throws -> Bool {
        guard op.inputs.count == 1, op.outputs.count == 1, op.inputs[0] >= 0, op.outputs[0] >= 0 else { return false }
        let input = op.inputs[0], output = op.outputs[0]
        /// Throws unless the output's shape holds `values`, the input's value count.
        func checkOutputHolds(_ values: Int, _ name: String) throws {
            guard shapes[output].elementCount == values else {
                throw InterpreterError.invalidOperator(
                    index: index,
                    error: KernelError(
                        op: name,
                        "its input has \(values) values but its output's shape \(shapes[output]) holds \(shapes[output].elementCount)"))
            }
        }
        switch builtin {
        case .dequantize:
            // float16 constants are widened to float32 when read, so
            // dequantizing is the identity on the stored values.
            guard let source = sources[input], let count = floatCount(of: input) else { return false }
            try checkOutputHolds(count, "DEQUANTIZE")
            sources[output] = source
            return true
        case .densify:
            guard let valueCount = sparse[input] else { return false }
            let description = Self.description(of: subgraph.tensors[input].sparsity!, shape: shapes[input])
            let layout: SparseTensorLayout
            do {
                layout = try SparseTensorLayout(description, valueCount: valueCount)
            } catch let error as KernelError {
                throw InterpreterError.invalidOperator(index: index, error: error)
            }
            try checkOutputHolds(layout.denseCount, "DENSIFY")
            sources[output] = .densified(sparse: input, layout: layout)
            return true
        default:
            return false
        }
    }

    /// The float32 or float16 buffer of tensor `index` as float32 values.
    private func floats(of index: Int) -> [Float] { Self.floats(of: subgraph.tensors[index], in: model) }

    /// The float32 or float16 buffer of `tensor` as float32 values (the
    /// verifier checked that it holds whole values).
    private static func floats(of tensor: TensorInfo, in model: TFLiteModel) -> [Float] {
        model.withBufferBytes(tensor.buffer) { bytes in
            switch tensor.type {
            case .float16: return Dequantize.float16ToFloat32(Float16Bytes(bytes))
            default: return Self.readLittleEndian(bytes, as: UInt32.self).map { Float(bitPattern: $0) }
            }
        }
    }

    /// Whole little-endian elements of `bytes` (the verifier checked the size).
    private static func readLittleEndian<T: FixedWidthInteger>(
        _ bytes: UnsafeRawBufferPointer, as: T.Type
    ) -> [T] {
        let count = bytes.count / MemoryLayout<T>.size
        return (0..<count).map { i in
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: i * MemoryLayout<T>.size, as: T.self))
        }
    }

    /// Converts the file's sparsity parameters into the kernel's description
    /// (sharing, not copying, the index lists).
    private static func description(
        of sparsity: SparsityParameters, shape: TensorShape
    ) -> SparseTensorDescription {
        SparseTensorDescription(
            denseShape: shape.dimensions,
            traversalOrder: sparsity.traversalOrder.map(Int.init),
            blockMap: sparsity.blockMap.map(Int.init),
            dimensions: sparsity.dimensionMetadata.map { dimension in
                switch dimension.format {
                case .dense:
                    return .dense(size: Int(dimension.denseSize))
                case .sparseCSR:
                    return .sparseCSR(segments: dimension.arraySegments, indices: dimension.arrayIndices)
                }
            })
    }
}

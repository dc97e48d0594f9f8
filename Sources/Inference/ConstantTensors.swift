import FlatBufferReader
import Kernels
import Tensor

/// Reads the constant tensors of a subgraph and folds the load-time-only
/// operators (DEQUANTIZE of float16 weights, DENSIFY of sparse weights) into
/// new constants, so that `invoke` never runs them.
///
/// With `readsWeights` false (`Interpreter.validate`), dense float32 and
/// float16 constants become `ConstantData.unreadFloat32` of their element
/// count: their bytes are not decoded (the validator already matched each
/// buffer's byte count to its tensor's shape, so decoding them cannot fail).
/// Int32 constants and sparse values, which are read at load time, are always decoded.
struct ConstantTensors {
    /// Folded value of each constant tensor, by tensor index.
    private(set) var values: [Int: ConstantData] = [:]
    /// Sparse constants waiting for their DENSIFY operator, by tensor index.
    private var sparse: [Int: (values: [Float], description: SparseTensorDescription)] = [:]

    /// Reads every tensor that has a non-empty buffer.
    init(model: TFLiteModel, subgraph: SubGraph, shapes: [TensorShape], readsWeights: Bool = true) throws {
        for (index, tensor) in subgraph.tensors.enumerated() where tensor.buffer > 0 {
            let data: ConstantData? = try model.withBufferBytes(tensor.buffer) { bytes in
                guard bytes.count > 0 else { return nil }
                if !readsWeights, tensor.sparsity == nil, let count = Self.floatCount(bytes, type: tensor.type) {
                    return .unreadFloat32(count: count)
                }
                return try Self.decode(bytes, type: tensor.type, tensorName: tensor.name)
            }
            guard let data else { continue }
            if let sparsity = tensor.sparsity {
                guard let floats = data.floatValues else {
                    throw InterpreterError.unsupportedTensorType(
                        tensor: tensor.name, type: "sparse \(tensor.type)")
                }
                sparse[index] = (floats, Self.description(of: sparsity, shape: shapes[index]))
            } else {
                values[index] = data
            }
        }
    }

    /// Whether tensor `index` is a constant (dense or still sparse).
    func isConstant(_ index: Int) -> Bool { values[index] != nil || sparse[index] != nil }

    /// Folds DEQUANTIZE and DENSIFY operators whose input is constant.
    /// Returns true if `op` was folded (and needs no kernel at run time).
    mutating func fold(_ op: OperatorInfo, builtin: BuiltinOperator, index: Int) throws -> Bool {
        guard op.inputs.count == 1, op.outputs.count == 1, op.inputs[0] >= 0 else { return false }
        let input = op.inputs[0], output = op.outputs[0]
        switch builtin {
        case .dequantize:
            // float16 constants were widened to float32 when read, so
            // dequantizing is the identity on the stored values.
            guard let value = values[input] else { return false }
            values[output] = value
            return true
        case .densify:
            guard let entry = sparse[input] else { return false }
            do {
                values[output] = .float32(try Densify.densify(values: entry.values, description: entry.description))
            } catch let error as KernelError {
                throw InterpreterError.invalidOperator(index: index, error: error)
            }
            return true
        default:
            return false
        }
    }

    /// The number of values in a float32 or float16 buffer; nil for other types.
    private static func floatCount(_ bytes: UnsafeRawBufferPointer, type: TensorType) -> Int? {
        switch type {
        case .float32: return bytes.count / 4
        case .float16: return bytes.count / 2
        default: return nil
        }
    }

    /// Decodes a buffer's little-endian bytes as the tensor's element type;
    /// float16 is widened to float32 exactly.
    private static func decode(
        _ bytes: UnsafeRawBufferPointer, type: TensorType, tensorName: String
    ) throws -> ConstantData {
        switch type {
        case .float32:
            return .float32(readLittleEndian(bytes, as: UInt32.self).map { Float(bitPattern: $0) })
        case .float16:
            return .float32(try Dequantize.float16ToFloat32(bytes))
        case .int32:
            return .int32(readLittleEndian(bytes, as: UInt32.self).map { Int32(bitPattern: $0) })
        default:
            throw InterpreterError.unsupportedTensorType(tensor: tensorName, type: "\(type)")
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

    /// Converts the file's sparsity parameters into the kernel's description.
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
                    return .sparseCSR(
                        segments: dimension.arraySegments.map(Int.init),
                        indices: dimension.arrayIndices.map(Int.init))
                }
            })
    }
}

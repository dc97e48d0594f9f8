// The subset of TensorFlow Lite's `schema.fbs` (schema version 3) that this module verifies
// and decodes: field ids (vtable slots; a union takes two, its type then its value) and
// layouts. The decoder reads fields by the same ids. The option tables of `union
// BuiltinOptions` are generated from the schema (`BuiltinOptionsFields`).

/// Field ids of `table Model`.
enum ModelField {
    static let version = 0, operatorCodes = 1, subgraphs = 2, description = 3, buffers = 4
    static let metadataBuffer = 5, metadata = 6
}

/// Field ids of `table OperatorCode`.
enum OperatorCodeField {
    static let deprecatedBuiltinCode = 0, customCode = 1, version = 2, builtinCode = 3
}

/// Field ids of `table SubGraph`.
enum SubGraphField {
    static let tensors = 0, inputs = 1, outputs = 2, operators = 3, name = 4
}

/// Field ids of `table Tensor`.
enum TensorField {
    static let shape = 0, type = 1, buffer = 2, name = 3, quantization = 4, isVariable = 5
    static let sparsity = 6, shapeSignature = 7
}

/// Field ids of `table QuantizationParameters`.
enum QuantizationField {
    static let min = 0, max = 1, scale = 2, zeroPoint = 3, detailsType = 4, details = 5
    static let quantizedDimension = 6
}

/// Field ids of `table SparsityParameters`.
enum SparsityField {
    static let traversalOrder = 0, blockMap = 1, dimensionMetadata = 2
}

/// Field ids of `table DimensionMetadata`.
enum DimensionMetadataField {
    static let format = 0, denseSize = 1, arraySegmentsType = 2, arraySegments = 3
    static let arrayIndicesType = 4, arrayIndices = 5
}

/// Type codes of `union SparseIndexVector`; each member table has one field, `values` (id 0).
enum SparseIndexVectorType {
    static let int32Vector: UInt8 = 1, uint16Vector: UInt8 = 2, uint8Vector: UInt8 = 3
    static let valuesField = 0
}

/// Field ids of `table Operator`.
enum OperatorField {
    static let opcodeIndex = 0, inputs = 1, outputs = 2, builtinOptionsType = 3, builtinOptions = 4
    static let customOptions = 5, customOptionsFormat = 6, mutatingVariableInputs = 7, intermediates = 8
}

/// Field ids of `table Buffer`.
enum BufferField {
    static let data = 0, offset = 1, size = 2
}

/// Field ids of `table Metadata`.
enum MetadataField {
    static let name = 0, buffer = 1
}

/// The verifier's view of the TFLite schema subset.
enum TFLiteSchema {
    private static let int8 = FieldKind.scalar(size: 1)
    private static let int32 = FieldKind.scalar(size: 4)
    private static let int64 = FieldKind.scalar(size: 8)
    private static let bool = FieldKind.scalar(size: 1)
    private static let int32Vector = FieldKind.scalarVector(elementSize: 4, decoded: true)
    private static let byteVector = FieldKind.scalarVector(elementSize: 1, decoded: false)
    private static let float32Vector = FieldKind.scalarVector(elementSize: 4, decoded: false)
    private static let tensorType = FieldKind.enumeration(name: "TensorType", valid: 0...17)

    static let model = TableSchema("Model", [
        FieldSchema(ModelField.version, "version", int32),
        FieldSchema(ModelField.operatorCodes, "operator_codes", .tableVector(operatorCode)),
        FieldSchema(ModelField.subgraphs, "subgraphs", .tableVector(subGraph)),
        FieldSchema(ModelField.description, "description", .string),
        FieldSchema(ModelField.buffers, "buffers", .tableVector(buffer)),
        FieldSchema(ModelField.metadataBuffer, "metadata_buffer", int32Vector),
        FieldSchema(ModelField.metadata, "metadata", .tableVector(metadata)),
    ])

    static let operatorCode = TableSchema("OperatorCode", [
        FieldSchema(OperatorCodeField.deprecatedBuiltinCode, "deprecated_builtin_code", int8),
        FieldSchema(OperatorCodeField.customCode, "custom_code", .string),
        FieldSchema(OperatorCodeField.version, "version", int32),
        FieldSchema(OperatorCodeField.builtinCode, "builtin_code", int32),
    ])

    static let subGraph = TableSchema("SubGraph", [
        FieldSchema(SubGraphField.tensors, "tensors", .tableVector(tensor)),
        FieldSchema(SubGraphField.inputs, "inputs", int32Vector),
        FieldSchema(SubGraphField.outputs, "outputs", int32Vector),
        FieldSchema(SubGraphField.operators, "operators", .tableVector(operatorTable)),
        FieldSchema(SubGraphField.name, "name", .string),
    ])

    static let tensor = TableSchema("Tensor", [
        FieldSchema(TensorField.shape, "shape", int32Vector),
        FieldSchema(TensorField.type, "type", tensorType),
        FieldSchema(TensorField.buffer, "buffer", int32),
        FieldSchema(TensorField.name, "name", .string),
        FieldSchema(TensorField.quantization, "quantization", .table(quantization)),
        FieldSchema(TensorField.isVariable, "is_variable", bool),
        FieldSchema(TensorField.sparsity, "sparsity", .table(sparsity)),
        FieldSchema(TensorField.shapeSignature, "shape_signature", int32Vector),
    ])

    static let quantization = TableSchema("QuantizationParameters", [
        FieldSchema(QuantizationField.min, "min", float32Vector),
        FieldSchema(QuantizationField.max, "max", float32Vector),
        FieldSchema(QuantizationField.scale, "scale", float32Vector),
        FieldSchema(QuantizationField.zeroPoint, "zero_point", .scalarVector(elementSize: 8, decoded: false)),
        FieldSchema(QuantizationField.detailsType, "details_type", int8),
        FieldSchema(
            QuantizationField.details, "details",
            .unionValue(typeField: QuantizationField.detailsType, members: [1: customQuantization], knownTypeCount: 1)),
        FieldSchema(QuantizationField.quantizedDimension, "quantized_dimension", int32),
    ])

    static let customQuantization = TableSchema("CustomQuantization", [
        FieldSchema(0, "custom", byteVector),
    ])

    static let sparsity = TableSchema("SparsityParameters", [
        FieldSchema(SparsityField.traversalOrder, "traversal_order", int32Vector),
        FieldSchema(SparsityField.blockMap, "block_map", int32Vector),
        FieldSchema(SparsityField.dimensionMetadata, "dim_metadata", .tableVector(dimensionMetadata)),
    ])

    static let dimensionMetadata = TableSchema("DimensionMetadata", [
        FieldSchema(DimensionMetadataField.format, "format", .enumeration(name: "DimensionType", valid: 0...1)),
        FieldSchema(DimensionMetadataField.denseSize, "dense_size", int32),
        FieldSchema(DimensionMetadataField.arraySegmentsType, "array_segments_type", int8),
        FieldSchema(DimensionMetadataField.arraySegments, "array_segments", sparseIndexVector(DimensionMetadataField.arraySegmentsType)),
        FieldSchema(DimensionMetadataField.arrayIndicesType, "array_indices_type", int8),
        FieldSchema(DimensionMetadataField.arrayIndices, "array_indices", sparseIndexVector(DimensionMetadataField.arrayIndicesType)),
    ])

    private static func sparseIndexVector(_ typeField: Int) -> FieldKind {
        .unionValue(
            typeField: typeField,
            members: [
                SparseIndexVectorType.int32Vector: indexVector("Int32Vector", elementSize: 4),
                SparseIndexVectorType.uint16Vector: indexVector("Uint16Vector", elementSize: 2),
                SparseIndexVectorType.uint8Vector: indexVector("Uint8Vector", elementSize: 1),
            ],
            knownTypeCount: 3)
    }

    private static func indexVector(_ name: StaticString, elementSize: Int) -> TableSchema {
        TableSchema(name, [
            // Read in place (`IndexList`), not copied.
            FieldSchema(SparseIndexVectorType.valuesField, "values", .scalarVector(elementSize: elementSize, decoded: false)),
        ])
    }

    static let operatorTable = TableSchema("Operator", [
        FieldSchema(OperatorField.opcodeIndex, "opcode_index", int32),
        FieldSchema(OperatorField.inputs, "inputs", int32Vector),
        FieldSchema(OperatorField.outputs, "outputs", int32Vector),
        FieldSchema(OperatorField.builtinOptionsType, "builtin_options_type", FieldKind.scalar(size: 1)),
        FieldSchema(
            OperatorField.builtinOptions, "builtin_options",
            .unionValue(
                typeField: OperatorField.builtinOptionsType, members: BuiltinOptionsFields.members,
                knownTypeCount: BuiltinOptionsType.lastKnown)),
        FieldSchema(OperatorField.customOptions, "custom_options", byteVector),
        FieldSchema(
            OperatorField.customOptionsFormat, "custom_options_format",
            .enumeration(name: "CustomOptionsFormat", valid: 0...0)),
        FieldSchema(OperatorField.mutatingVariableInputs, "mutating_variable_inputs", byteVector),
        FieldSchema(OperatorField.intermediates, "intermediates", int32Vector),
    ])

    static let buffer = TableSchema("Buffer", [
        FieldSchema(BufferField.data, "data", byteVector),
        FieldSchema(BufferField.offset, "offset", int64),
        FieldSchema(BufferField.size, "size", int64),
    ])

    static let metadata = TableSchema("Metadata", [
        FieldSchema(MetadataField.name, "name", .string),
        FieldSchema(MetadataField.buffer, "buffer", int32),
    ])
}

/// A builtin operator code (`enum BuiltinOperator : int32` in the TFLite schema), e.g. `CONV_2D`.
/// An operator code's builtin is `max(deprecated_builtin_code, builtin_code)`; codes this module
/// does not name are kept and print as `BUILTIN_<n>`.
public struct BuiltinOperator: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The schema name, e.g. `CONV_2D`, or `BUILTIN_<n>` for a code the schema does not name.
    public var description: String {
        if let name = Self.names[rawValue] { return name }
        return "BUILTIN_\(rawValue)"
    }

    public static let add = BuiltinOperator(rawValue: 0)
    public static let averagePool2D = BuiltinOperator(rawValue: 1)
    public static let concatenation = BuiltinOperator(rawValue: 2)
    public static let conv2D = BuiltinOperator(rawValue: 3)
    public static let depthwiseConv2D = BuiltinOperator(rawValue: 4)
    public static let depthToSpace = BuiltinOperator(rawValue: 5)
    public static let dequantize = BuiltinOperator(rawValue: 6)
    public static let embeddingLookup = BuiltinOperator(rawValue: 7)
    public static let floor = BuiltinOperator(rawValue: 8)
    public static let fullyConnected = BuiltinOperator(rawValue: 9)
    public static let hashtableLookup = BuiltinOperator(rawValue: 10)
    public static let l2Normalization = BuiltinOperator(rawValue: 11)
    public static let l2Pool2D = BuiltinOperator(rawValue: 12)
    public static let localResponseNormalization = BuiltinOperator(rawValue: 13)
    public static let logistic = BuiltinOperator(rawValue: 14)
    public static let lshProjection = BuiltinOperator(rawValue: 15)
    public static let lstm = BuiltinOperator(rawValue: 16)
    public static let maxPool2D = BuiltinOperator(rawValue: 17)
    public static let mul = BuiltinOperator(rawValue: 18)
    public static let relu = BuiltinOperator(rawValue: 19)
    public static let reluN1To1 = BuiltinOperator(rawValue: 20)
    public static let relu6 = BuiltinOperator(rawValue: 21)
    public static let reshape = BuiltinOperator(rawValue: 22)
    public static let resizeBilinear = BuiltinOperator(rawValue: 23)
    public static let rnn = BuiltinOperator(rawValue: 24)
    public static let softmax = BuiltinOperator(rawValue: 25)
    public static let spaceToDepth = BuiltinOperator(rawValue: 26)
    public static let svdf = BuiltinOperator(rawValue: 27)
    public static let tanh = BuiltinOperator(rawValue: 28)
    public static let concatEmbeddings = BuiltinOperator(rawValue: 29)
    public static let skipGram = BuiltinOperator(rawValue: 30)
    public static let call = BuiltinOperator(rawValue: 31)
    public static let custom = BuiltinOperator(rawValue: 32)
    public static let embeddingLookupSparse = BuiltinOperator(rawValue: 33)
    public static let pad = BuiltinOperator(rawValue: 34)
    public static let unidirectionalSequenceRnn = BuiltinOperator(rawValue: 35)
    public static let gather = BuiltinOperator(rawValue: 36)
    public static let batchToSpaceNd = BuiltinOperator(rawValue: 37)
    public static let spaceToBatchNd = BuiltinOperator(rawValue: 38)
    public static let transpose = BuiltinOperator(rawValue: 39)
    public static let mean = BuiltinOperator(rawValue: 40)
    public static let sub = BuiltinOperator(rawValue: 41)
    public static let div = BuiltinOperator(rawValue: 42)
    public static let squeeze = BuiltinOperator(rawValue: 43)
    public static let unidirectionalSequenceLstm = BuiltinOperator(rawValue: 44)
    public static let stridedSlice = BuiltinOperator(rawValue: 45)
    public static let bidirectionalSequenceRnn = BuiltinOperator(rawValue: 46)
    public static let exp = BuiltinOperator(rawValue: 47)
    public static let topkV2 = BuiltinOperator(rawValue: 48)
    public static let split = BuiltinOperator(rawValue: 49)
    public static let logSoftmax = BuiltinOperator(rawValue: 50)
    public static let delegate = BuiltinOperator(rawValue: 51)
    public static let bidirectionalSequenceLstm = BuiltinOperator(rawValue: 52)
    public static let cast = BuiltinOperator(rawValue: 53)
    public static let prelu = BuiltinOperator(rawValue: 54)
    public static let maximum = BuiltinOperator(rawValue: 55)
    public static let argMax = BuiltinOperator(rawValue: 56)
    public static let minimum = BuiltinOperator(rawValue: 57)
    public static let less = BuiltinOperator(rawValue: 58)
    public static let neg = BuiltinOperator(rawValue: 59)
    public static let padv2 = BuiltinOperator(rawValue: 60)
    public static let greater = BuiltinOperator(rawValue: 61)
    public static let greaterEqual = BuiltinOperator(rawValue: 62)
    public static let lessEqual = BuiltinOperator(rawValue: 63)
    public static let select = BuiltinOperator(rawValue: 64)
    public static let slice = BuiltinOperator(rawValue: 65)
    public static let sin = BuiltinOperator(rawValue: 66)
    public static let transposeConv = BuiltinOperator(rawValue: 67)
    public static let sparseToDense = BuiltinOperator(rawValue: 68)
    public static let tile = BuiltinOperator(rawValue: 69)
    public static let expandDims = BuiltinOperator(rawValue: 70)
    public static let equal = BuiltinOperator(rawValue: 71)
    public static let notEqual = BuiltinOperator(rawValue: 72)
    public static let log = BuiltinOperator(rawValue: 73)
    public static let sum = BuiltinOperator(rawValue: 74)
    public static let sqrt = BuiltinOperator(rawValue: 75)
    public static let rsqrt = BuiltinOperator(rawValue: 76)
    public static let shape = BuiltinOperator(rawValue: 77)
    public static let pow = BuiltinOperator(rawValue: 78)
    public static let argMin = BuiltinOperator(rawValue: 79)
    public static let fakeQuant = BuiltinOperator(rawValue: 80)
    public static let reduceProd = BuiltinOperator(rawValue: 81)
    public static let reduceMax = BuiltinOperator(rawValue: 82)
    public static let pack = BuiltinOperator(rawValue: 83)
    public static let logicalOr = BuiltinOperator(rawValue: 84)
    public static let oneHot = BuiltinOperator(rawValue: 85)
    public static let logicalAnd = BuiltinOperator(rawValue: 86)
    public static let logicalNot = BuiltinOperator(rawValue: 87)
    public static let unpack = BuiltinOperator(rawValue: 88)
    public static let reduceMin = BuiltinOperator(rawValue: 89)
    public static let floorDiv = BuiltinOperator(rawValue: 90)
    public static let reduceAny = BuiltinOperator(rawValue: 91)
    public static let square = BuiltinOperator(rawValue: 92)
    public static let zerosLike = BuiltinOperator(rawValue: 93)
    public static let fill = BuiltinOperator(rawValue: 94)
    public static let floorMod = BuiltinOperator(rawValue: 95)
    public static let range = BuiltinOperator(rawValue: 96)
    public static let resizeNearestNeighbor = BuiltinOperator(rawValue: 97)
    public static let leakyRelu = BuiltinOperator(rawValue: 98)
    public static let squaredDifference = BuiltinOperator(rawValue: 99)
    public static let mirrorPad = BuiltinOperator(rawValue: 100)
    public static let abs = BuiltinOperator(rawValue: 101)
    public static let splitV = BuiltinOperator(rawValue: 102)
    public static let unique = BuiltinOperator(rawValue: 103)
    public static let ceil = BuiltinOperator(rawValue: 104)
    public static let reverseV2 = BuiltinOperator(rawValue: 105)
    public static let addN = BuiltinOperator(rawValue: 106)
    public static let gatherNd = BuiltinOperator(rawValue: 107)
    public static let cos = BuiltinOperator(rawValue: 108)
    public static let `where` = BuiltinOperator(rawValue: 109)
    public static let rank = BuiltinOperator(rawValue: 110)
    public static let elu = BuiltinOperator(rawValue: 111)
    public static let reverseSequence = BuiltinOperator(rawValue: 112)
    public static let matrixDiag = BuiltinOperator(rawValue: 113)
    public static let quantize = BuiltinOperator(rawValue: 114)
    public static let matrixSetDiag = BuiltinOperator(rawValue: 115)
    public static let round = BuiltinOperator(rawValue: 116)
    public static let hardSwish = BuiltinOperator(rawValue: 117)
    public static let `if` = BuiltinOperator(rawValue: 118)
    public static let `while` = BuiltinOperator(rawValue: 119)
    public static let nonMaxSuppressionV4 = BuiltinOperator(rawValue: 120)
    public static let nonMaxSuppressionV5 = BuiltinOperator(rawValue: 121)
    public static let scatterNd = BuiltinOperator(rawValue: 122)
    public static let selectV2 = BuiltinOperator(rawValue: 123)
    public static let densify = BuiltinOperator(rawValue: 124)
    public static let segmentSum = BuiltinOperator(rawValue: 125)
    public static let batchMatmul = BuiltinOperator(rawValue: 126)
    public static let placeholderForGreaterOpCodes = BuiltinOperator(rawValue: 127)
    public static let cumsum = BuiltinOperator(rawValue: 128)
    public static let callOnce = BuiltinOperator(rawValue: 129)
    public static let broadcastTo = BuiltinOperator(rawValue: 130)
    public static let rfft2d = BuiltinOperator(rawValue: 131)
    public static let conv3D = BuiltinOperator(rawValue: 132)
    public static let imag = BuiltinOperator(rawValue: 133)
    public static let real = BuiltinOperator(rawValue: 134)
    public static let complexAbs = BuiltinOperator(rawValue: 135)
    public static let hashtable = BuiltinOperator(rawValue: 136)
    public static let hashtableFind = BuiltinOperator(rawValue: 137)
    public static let hashtableImport = BuiltinOperator(rawValue: 138)
    public static let hashtableSize = BuiltinOperator(rawValue: 139)
    public static let reduceAll = BuiltinOperator(rawValue: 140)
    public static let conv3DTranspose = BuiltinOperator(rawValue: 141)
    public static let varHandle = BuiltinOperator(rawValue: 142)
    public static let readVariable = BuiltinOperator(rawValue: 143)
    public static let assignVariable = BuiltinOperator(rawValue: 144)
    public static let broadcastArgs = BuiltinOperator(rawValue: 145)
    public static let randomStandardNormal = BuiltinOperator(rawValue: 146)
    public static let bucketize = BuiltinOperator(rawValue: 147)
    public static let randomUniform = BuiltinOperator(rawValue: 148)
    public static let multinomial = BuiltinOperator(rawValue: 149)
    public static let gelu = BuiltinOperator(rawValue: 150)
    public static let dynamicUpdateSlice = BuiltinOperator(rawValue: 151)
    public static let relu0To1 = BuiltinOperator(rawValue: 152)
    public static let unsortedSegmentProd = BuiltinOperator(rawValue: 153)
    public static let unsortedSegmentMax = BuiltinOperator(rawValue: 154)
    public static let unsortedSegmentSum = BuiltinOperator(rawValue: 155)
    public static let atan2 = BuiltinOperator(rawValue: 156)
    public static let unsortedSegmentMin = BuiltinOperator(rawValue: 157)
    public static let sign = BuiltinOperator(rawValue: 158)
    public static let bitcast = BuiltinOperator(rawValue: 159)
    public static let bitwiseXor = BuiltinOperator(rawValue: 160)
    public static let rightShift = BuiltinOperator(rawValue: 161)
    public static let stablehloLogistic = BuiltinOperator(rawValue: 162)
    public static let stablehloAdd = BuiltinOperator(rawValue: 163)
    public static let stablehloDivide = BuiltinOperator(rawValue: 164)
    public static let stablehloMultiply = BuiltinOperator(rawValue: 165)
    public static let stablehloMaximum = BuiltinOperator(rawValue: 166)
    public static let stablehloReshape = BuiltinOperator(rawValue: 167)
    public static let stablehloClamp = BuiltinOperator(rawValue: 168)
    public static let stablehloConcatenate = BuiltinOperator(rawValue: 169)
    public static let stablehloBroadcastInDim = BuiltinOperator(rawValue: 170)
    public static let stablehloConvolution = BuiltinOperator(rawValue: 171)
    public static let stablehloSlice = BuiltinOperator(rawValue: 172)
    public static let stablehloCustomCall = BuiltinOperator(rawValue: 173)
    public static let stablehloReduce = BuiltinOperator(rawValue: 174)
    public static let stablehloAbs = BuiltinOperator(rawValue: 175)
    public static let stablehloAnd = BuiltinOperator(rawValue: 176)
    public static let stablehloCosine = BuiltinOperator(rawValue: 177)
    public static let stablehloExponential = BuiltinOperator(rawValue: 178)
    public static let stablehloFloor = BuiltinOperator(rawValue: 179)
    public static let stablehloLog = BuiltinOperator(rawValue: 180)
    public static let stablehloMinimum = BuiltinOperator(rawValue: 181)
    public static let stablehloNegate = BuiltinOperator(rawValue: 182)
    public static let stablehloOr = BuiltinOperator(rawValue: 183)
    public static let stablehloPower = BuiltinOperator(rawValue: 184)
    public static let stablehloRemainder = BuiltinOperator(rawValue: 185)
    public static let stablehloRsqrt = BuiltinOperator(rawValue: 186)
    public static let stablehloSelect = BuiltinOperator(rawValue: 187)
    public static let stablehloSubtract = BuiltinOperator(rawValue: 188)
    public static let stablehloTanh = BuiltinOperator(rawValue: 189)
    public static let stablehloScatter = BuiltinOperator(rawValue: 190)
    public static let stablehloCompare = BuiltinOperator(rawValue: 191)
    public static let stablehloConvert = BuiltinOperator(rawValue: 192)
    public static let stablehloDynamicSlice = BuiltinOperator(rawValue: 193)
    public static let stablehloDynamicUpdateSlice = BuiltinOperator(rawValue: 194)
    public static let stablehloPad = BuiltinOperator(rawValue: 195)
    public static let stablehloIota = BuiltinOperator(rawValue: 196)
    public static let stablehloDotGeneral = BuiltinOperator(rawValue: 197)
    public static let stablehloReduceWindow = BuiltinOperator(rawValue: 198)
    public static let stablehloSort = BuiltinOperator(rawValue: 199)
    public static let stablehloWhile = BuiltinOperator(rawValue: 200)
    public static let stablehloGather = BuiltinOperator(rawValue: 201)
    public static let stablehloTranspose = BuiltinOperator(rawValue: 202)
    public static let dilate = BuiltinOperator(rawValue: 203)
    public static let stablehloRngBitGenerator = BuiltinOperator(rawValue: 204)
    public static let reduceWindow = BuiltinOperator(rawValue: 205)
    public static let tempStreamingConv2D = BuiltinOperator(rawValue: 225)

    private static let names: [Int32: String] = [
        0: "ADD",
        1: "AVERAGE_POOL_2D",
        2: "CONCATENATION",
        3: "CONV_2D",
        4: "DEPTHWISE_CONV_2D",
        5: "DEPTH_TO_SPACE",
        6: "DEQUANTIZE",
        7: "EMBEDDING_LOOKUP",
        8: "FLOOR",
        9: "FULLY_CONNECTED",
        10: "HASHTABLE_LOOKUP",
        11: "L2_NORMALIZATION",
        12: "L2_POOL_2D",
        13: "LOCAL_RESPONSE_NORMALIZATION",
        14: "LOGISTIC",
        15: "LSH_PROJECTION",
        16: "LSTM",
        17: "MAX_POOL_2D",
        18: "MUL",
        19: "RELU",
        20: "RELU_N1_TO_1",
        21: "RELU6",
        22: "RESHAPE",
        23: "RESIZE_BILINEAR",
        24: "RNN",
        25: "SOFTMAX",
        26: "SPACE_TO_DEPTH",
        27: "SVDF",
        28: "TANH",
        29: "CONCAT_EMBEDDINGS",
        30: "SKIP_GRAM",
        31: "CALL",
        32: "CUSTOM",
        33: "EMBEDDING_LOOKUP_SPARSE",
        34: "PAD",
        35: "UNIDIRECTIONAL_SEQUENCE_RNN",
        36: "GATHER",
        37: "BATCH_TO_SPACE_ND",
        38: "SPACE_TO_BATCH_ND",
        39: "TRANSPOSE",
        40: "MEAN",
        41: "SUB",
        42: "DIV",
        43: "SQUEEZE",
        44: "UNIDIRECTIONAL_SEQUENCE_LSTM",
        45: "STRIDED_SLICE",
        46: "BIDIRECTIONAL_SEQUENCE_RNN",
        47: "EXP",
        48: "TOPK_V2",
        49: "SPLIT",
        50: "LOG_SOFTMAX",
        51: "DELEGATE",
        52: "BIDIRECTIONAL_SEQUENCE_LSTM",
        53: "CAST",
        54: "PRELU",
        55: "MAXIMUM",
        56: "ARG_MAX",
        57: "MINIMUM",
        58: "LESS",
        59: "NEG",
        60: "PADV2",
        61: "GREATER",
        62: "GREATER_EQUAL",
        63: "LESS_EQUAL",
        64: "SELECT",
        65: "SLICE",
        66: "SIN",
        67: "TRANSPOSE_CONV",
        68: "SPARSE_TO_DENSE",
        69: "TILE",
        70: "EXPAND_DIMS",
        71: "EQUAL",
        72: "NOT_EQUAL",
        73: "LOG",
        74: "SUM",
        75: "SQRT",
        76: "RSQRT",
        77: "SHAPE",
        78: "POW",
        79: "ARG_MIN",
        80: "FAKE_QUANT",
        81: "REDUCE_PROD",
        82: "REDUCE_MAX",
        83: "PACK",
        84: "LOGICAL_OR",
        85: "ONE_HOT",
        86: "LOGICAL_AND",
        87: "LOGICAL_NOT",
        88: "UNPACK",
        89: "REDUCE_MIN",
        90: "FLOOR_DIV",
        91: "REDUCE_ANY",
        92: "SQUARE",
        93: "ZEROS_LIKE",
        94: "FILL",
        95: "FLOOR_MOD",
        96: "RANGE",
        97: "RESIZE_NEAREST_NEIGHBOR",
        98: "LEAKY_RELU",
        99: "SQUARED_DIFFERENCE",
        100: "MIRROR_PAD",
        101: "ABS",
        102: "SPLIT_V",
        103: "UNIQUE",
        104: "CEIL",
        105: "REVERSE_V2",
        106: "ADD_N",
        107: "GATHER_ND",
        108: "COS",
        109: "WHERE",
        110: "RANK",
        111: "ELU",
        112: "REVERSE_SEQUENCE",
        113: "MATRIX_DIAG",
        114: "QUANTIZE",
        115: "MATRIX_SET_DIAG",
        116: "ROUND",
        117: "HARD_SWISH",
        118: "IF",
        119: "WHILE",
        120: "NON_MAX_SUPPRESSION_V4",
        121: "NON_MAX_SUPPRESSION_V5",
        122: "SCATTER_ND",
        123: "SELECT_V2",
        124: "DENSIFY",
        125: "SEGMENT_SUM",
        126: "BATCH_MATMUL",
        127: "PLACEHOLDER_FOR_GREATER_OP_CODES",
        128: "CUMSUM",
        129: "CALL_ONCE",
        130: "BROADCAST_TO",
        131: "RFFT2D",
        132: "CONV_3D",
        133: "IMAG",
        134: "REAL",
        135: "COMPLEX_ABS",
        136: "HASHTABLE",
        137: "HASHTABLE_FIND",
        138: "HASHTABLE_IMPORT",
        139: "HASHTABLE_SIZE",
        140: "REDUCE_ALL",
        141: "CONV_3D_TRANSPOSE",
        142: "VAR_HANDLE",
        143: "READ_VARIABLE",
        144: "ASSIGN_VARIABLE",
        145: "BROADCAST_ARGS",
        146: "RANDOM_STANDARD_NORMAL",
        147: "BUCKETIZE",
        148: "RANDOM_UNIFORM",
        149: "MULTINOMIAL",
        150: "GELU",
        151: "DYNAMIC_UPDATE_SLICE",
        152: "RELU_0_TO_1",
        153: "UNSORTED_SEGMENT_PROD",
        154: "UNSORTED_SEGMENT_MAX",
        155: "UNSORTED_SEGMENT_SUM",
        156: "ATAN2",
        157: "UNSORTED_SEGMENT_MIN",
        158: "SIGN",
        159: "BITCAST",
        160: "BITWISE_XOR",
        161: "RIGHT_SHIFT",
        162: "STABLEHLO_LOGISTIC",
        163: "STABLEHLO_ADD",
        164: "STABLEHLO_DIVIDE",
        165: "STABLEHLO_MULTIPLY",
        166: "STABLEHLO_MAXIMUM",
        167: "STABLEHLO_RESHAPE",
        168: "STABLEHLO_CLAMP",
        169: "STABLEHLO_CONCATENATE",
        170: "STABLEHLO_BROADCAST_IN_DIM",
        171: "STABLEHLO_CONVOLUTION",
        172: "STABLEHLO_SLICE",
        173: "STABLEHLO_CUSTOM_CALL",
        174: "STABLEHLO_REDUCE",
        175: "STABLEHLO_ABS",
        176: "STABLEHLO_AND",
        177: "STABLEHLO_COSINE",
        178: "STABLEHLO_EXPONENTIAL",
        179: "STABLEHLO_FLOOR",
        180: "STABLEHLO_LOG",
        181: "STABLEHLO_MINIMUM",
        182: "STABLEHLO_NEGATE",
        183: "STABLEHLO_OR",
        184: "STABLEHLO_POWER",
        185: "STABLEHLO_REMAINDER",
        186: "STABLEHLO_RSQRT",
        187: "STABLEHLO_SELECT",
        188: "STABLEHLO_SUBTRACT",
        189: "STABLEHLO_TANH",
        190: "STABLEHLO_SCATTER",
        191: "STABLEHLO_COMPARE",
        192: "STABLEHLO_CONVERT",
        193: "STABLEHLO_DYNAMIC_SLICE",
        194: "STABLEHLO_DYNAMIC_UPDATE_SLICE",
        195: "STABLEHLO_PAD",
        196: "STABLEHLO_IOTA",
        197: "STABLEHLO_DOT_GENERAL",
        198: "STABLEHLO_REDUCE_WINDOW",
        199: "STABLEHLO_SORT",
        200: "STABLEHLO_WHILE",
        201: "STABLEHLO_GATHER",
        202: "STABLEHLO_TRANSPOSE",
        203: "DILATE",
        204: "STABLEHLO_RNG_BIT_GENERATOR",
        205: "REDUCE_WINDOW",
        225: "TEMP_STREAMING_CONV_2D",
    ]
}

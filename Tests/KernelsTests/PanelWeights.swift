import TestSupport

@testable import Kernels

extension SeededGenerator {
    /// `count` random weights in -1...1 for GEMM panels of `precision`: all float16 values
    /// (which `PackedGemmWeights` packs as float16), or, for `.float32`, the plain random floats
    /// with the first made one that float16 cannot hold (so the panels stay float32).
    mutating func panelWeights(_ count: Int, _ precision: PackedGemmWeights.Precision) -> [Float] {
        var weights = floats(count)
        switch precision {
        case .float16:
            return weights.map { Float(Float16($0)) }
        case .float32:
            if let first = weights.first, Float(Float16(first)) == first { weights[0] = first.nextUp }
            return weights
        }
    }
}

/// The panel precision `PackedGemmWeights` chooses for `outputs` channels of weights made by
/// `panelWeights(_:_:)` for `precision`: float32 in the dot-product layout and in builds that
/// do not pack float16 panels.
func expectedPanelPrecision(_ precision: PackedGemmWeights.Precision, outputs: Int) -> PackedGemmWeights.Precision {
    PackedGemmWeights.packsFloat16Panels && outputs > PackedGemmWeights.maxDotOutputs ? precision : .float32
}

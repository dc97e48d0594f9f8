import Testing

@testable import Kernels

/// How the microkernel family is detected and chosen.
@Suite struct KernelInstructionSetTests {
    static let avx512Line =
        "flags\t\t: fpu sse2 avx2 fma bmi2 avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni"

    @Test func cpuinfoWithEveryAVX512FeatureSupportsIt() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\n\(Self.avx512Line)\nbugs\t\t: sysret_ss_attrs\n"
        #expect(KernelInstructionSet.cpuFlagsSupportAVX512(cpuinfo: cpuinfo))
    }

    @Test func anyMissingFeatureMeansNo() {
        for missing in KernelInstructionSet.avx512Flags {
            let flags = Self.avx512Line.split(separator: " ").filter { $0 != missing }.joined(separator: " ")
            #expect(
                !KernelInstructionSet.cpuFlagsSupportAVX512(cpuinfo: "processor\t: 0\n\(flags)\n"),
                "without \(missing)")
        }
    }

    @Test func onlyWholeFlagNamesOfTheFlagsLineCount() {
        // Prefixes of longer names and other lines that mention the names do not count.
        let lookalikes = "flags\t\t: fpu avx512fx avx512dqq avx512cd_ avx512bwx avx512vlx\n"
            + "vmx flags\t: avx512f avx512dq avx512cd avx512bw avx512vl\n"
        #expect(!KernelInstructionSet.cpuFlagsSupportAVX512(cpuinfo: lookalikes))
        // Only the first flags line is read.
        #expect(!KernelInstructionSet.cpuFlagsSupportAVX512(cpuinfo: "flags\t: fpu\n\(Self.avx512Line)\n"))
    }

    @Test func unreadableOrEmptyCpuinfoMeansNo() {
        for text in ["", "\n\n", "flags", "flags\t:", "processor\t: 0\n", "\u{0}\u{1}garbage:::"] {
            #expect(!KernelInstructionSet.cpuFlagsSupportAVX512(cpuinfo: text), "\(text.debugDescription)")
        }
    }

    @Test func environmentTurnsAVX512Off() {
        let variable = KernelInstructionSet.disableAVX512Variable
        #expect(variable == "LANDMARKER_NO_AVX512")
        #expect(KernelInstructionSet.choose(avx512Available: true, environment: [:]) == .avx512)
        #expect(KernelInstructionSet.choose(avx512Available: true, environment: [variable: "1"]) == .baseline)
        #expect(KernelInstructionSet.choose(avx512Available: true, environment: [variable: "0"]) == .avx512)
        #expect(KernelInstructionSet.choose(avx512Available: false, environment: [:]) == .baseline)
        #expect(KernelInstructionSet.choose(avx512Available: false, environment: [variable: "1"]) == .baseline)
    }

    /// Each family's microkernel table names its own kernels, in XNNPACK's style, and tiles the
    /// GEMM panels as the weight packing lays them out.
    @Test func everySupportedFamilyHasATableOfItsOwn() {
        var instructionSets: Set<String> = []
        for family in KernelInstructionSet.supported {
            let table = family.microkernels
            instructionSets.insert(table.instructionSet)
            #expect(Set(table.names).count == table.names.count, "\(family): \(table.names)")
            for name in table.names {
                #expect(name.hasPrefix("f32-") && name.hasSuffix("-" + table.instructionSet), "\(family): \(name)")
            }
            let packingWidth = family == .avx512
                ? PackedGemmWeights.avx512PanelWidth : PackedGemmWeights.baselinePanelWidth
            #expect(table.gemmPanelWidth == packingWidth, "\(family)")
        }
        #expect(instructionSets.count == KernelInstructionSet.supported.count, "two families share a table")
        #expect(
            KernelInstructionSet.baseline.microkernels.instructionSet
                == (KernelInstructionSet.fusesMultiplyAdd ? "avx2-fma" : "portable"))
    }

    @Test func detectedIsSupportedAndBaselineAlwaysIs() {
        #expect(KernelInstructionSet.detected.isSupported)
        #expect(KernelInstructionSet.supported.first == .baseline)
        #expect(KernelInstructionSet.supported.contains(KernelInstructionSet.detected))
    }

    @Test(.disabled(if: KernelInstructionSet.avx512.isSupported, "this CPU runs the AVX-512 kernels"))
    func unsupportedFamilyIsATypedError() {
        #expect(throws: KernelError.self) {
            try PackedGemmWeights(
                outputChannels: 4, inputChannels: 2, weights: [Float](repeating: 1, count: 8), bias: nil,
                instructionSet: .avx512)
        }
        #expect(throws: KernelError.self) {
            try PackedDepthwiseWeights(
                channels: 2, kernelHeight: 1, kernelWidth: 1, weights: [1, 1], bias: nil, instructionSet: .avx512)
        }
    }
}

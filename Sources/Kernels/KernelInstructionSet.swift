import KernelTemplates
#if LANDMARKER_AVX512
import KernelsAVX512
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which family of compiled microkernels the fast CONV_2D,
/// DEPTHWISE_CONV_2D and FULLY_CONNECTED kernels run. Chosen when a kernel
/// is prepared and stored in its packed weights; every later run uses it.
///
/// Both families compute every output element with the same operations in
/// the same order (a bias, then one fused multiply-add per tap or input
/// channel, in ascending order), so they give bit-identical results in the
/// native build; they differ in speed only.
public enum KernelInstructionSet: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The `SIMD8<Float>` kernels, compiled with the library's own code
    /// generation (AVX2 + FMA in the native x86-64 build, portable
    /// otherwise). Runs wherever the library runs.
    case baseline
    /// The `SIMD16<Float>` kernels of the `KernelsAVX512` module, compiled
    /// for AVX-512 (F, CD, BW, DQ, VL). Only where `isSupported`.
    case avx512

    public var description: String { rawValue }

    /// Whether this process can run the family: always for `baseline`; for
    /// `avx512`, when the library was built with the AVX-512 kernels (the
    /// native x86-64 build) and the CPU and OS support them.
    public var isSupported: Bool {
        switch self {
        case .baseline: return true
        case .avx512: return Self.avx512Available
        }
    }

    /// The families this process can run, `baseline` first.
    public static var supported: [KernelInstructionSet] {
        allCases.filter(\.isSupported)
    }

    /// Throws unless `isSupported`: a kernel prepared for a family this CPU
    /// cannot run would crash at its first run.
    func requireSupported(op: String) throws(KernelError) {
        guard isSupported else {
            throw KernelError(
                op: op,
                "the \(self) kernels are not available here (not built into this library, "
                    + "or the CPU or OS lacks \(Self.avx512Flags.sorted().joined(separator: ", ")))")
        }
    }

    /// Whether the fast kernels of this build fuse their multiply-adds
    /// (native x86-64 builds, `LANDMARKER_FMA`). Only then do they compute
    /// what XNNPACK computes, bit for bit, in the operators they share
    /// (convolutions, depthwise convolutions, RESIZE_BILINEAR); the portable
    /// build rounds each product separately.
    public static var fusesMultiplyAdd: Bool {
        #if LANDMARKER_FMA
        return true
        #else
        return false
        #endif
    }

    /// The environment variable that, set to `1`, makes `detected` choose
    /// `baseline` even where AVX-512 is supported.
    public static let disableAVX512Variable = "LANDMARKER_NO_AVX512"

    /// The fastest supported family, unless the environment turns AVX-512
    /// off (`LANDMARKER_NO_AVX512=1`). Determined once per process.
    public static let detected = choose(
        avx512Available: avx512Available, environment: ProcessInfo.processInfo.environment)

    /// `detected`'s rule: AVX-512 when available and not turned off by
    /// `LANDMARKER_NO_AVX512=1`.
    static func choose(avx512Available: Bool, environment: [String: String]) -> KernelInstructionSet {
        avx512Available && environment[disableAVX512Variable] != "1" ? .avx512 : .baseline
    }

    /// The family's microkernels. `self` must be supported here.
    ///
    /// The one place where the AVX-512 family is reached: its table exists
    /// only in builds with the `KernelsAVX512` module, and an op asks for it
    /// only with weights prepared for a supported family.
    public var microkernels: MicrokernelTable {
        switch self {
        case .baseline: return baselineMicrokernels
        case .avx512:
            #if LANDMARKER_AVX512
            return avx512Microkernels
            #else
            preconditionFailure("the AVX-512 kernels are not built into this library")
            #endif
        }
    }

    /// Whether the AVX-512 kernels were built and the CPU and OS support
    /// them. Determined once per process.
    private static let avx512Available: Bool = {
        #if LANDMARKER_AVX512
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
            return false
        }
        return cpuFlagsSupportAVX512(cpuinfo: cpuinfo)
        #else
        return false
        #endif
    }()

    /// The CPU features the AVX-512 kernels are compiled for
    /// (`-target-cpu skylake-avx512` beyond the Haswell baseline).
    static let avx512Flags: Set<Substring> = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]

    /// Whether the first `flags` line of a Linux `/proc/cpuinfo` lists every
    /// AVX-512 feature the kernels use. Linux drops these flags when the OS
    /// does not save the 512-bit register state, so their presence means
    /// both CPU and OS support. Anything unexpected means no.
    static func cpuFlagsSupportAVX512(cpuinfo: String) -> Bool {
        for line in cpuinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            // The key, "flags" with tabs or spaces around it.
            guard parts.count == 2, parts[0].split(whereSeparator: \.isWhitespace) == ["flags"]
            else { continue }
            let flags = Set(parts[1].split(separator: " "))
            return avx512Flags.isSubset(of: flags)
        }
        return false
    }
}

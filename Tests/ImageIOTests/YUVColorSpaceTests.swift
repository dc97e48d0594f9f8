import Testing
@testable import ImageIO

/// The four colour spaces against the ITU-R formulas: known colours by value, and every in-gamut
/// Y′CbCr triple on a grid within the documented bound.
@Suite struct YUVColorSpaceTests {
    /// 75 % colour bars (and white, black) in each colour space: the Y′CbCr values of the RGB
    /// bars, and the RGB that the formula gives back from those rounded values, worked out by hand
    /// (R = Y′ + 2(1 − Kr)·Cr, B = Y′ + 2(1 − Kb)·Cb, G = (Y′ − Kr·R − Kb·B)/(1 − Kr − Kb), scaled
    /// and rounded).
    static let bars: [(YUVColorSpace, yuv: (UInt8, UInt8, UInt8), rgb: (Int, Int, Int))] = [
        (.bt601Limited, (180, 128, 128), (191, 191, 191)),
        (.bt601Limited, (161, 44, 142), (191, 190, 0)),
        (.bt601Limited, (131, 156, 44), (0, 191, 190)),
        (.bt601Limited, (112, 72, 58), (0, 191, 0)),
        (.bt601Limited, (84, 184, 198), (191, 0, 192)),
        (.bt601Limited, (65, 100, 212), (191, 0, 1)),
        (.bt601Limited, (35, 212, 114), (0, 1, 192)),
        (.bt601Limited, (235, 128, 128), (255, 255, 255)),
        (.bt601Limited, (16, 128, 128), (0, 0, 0)),
        (.bt601Full, (191, 128, 128), (191, 191, 191)),
        (.bt601Full, (169, 32, 144), (191, 191, 0)),
        (.bt601Full, (134, 160, 32), (0, 192, 191)),
        (.bt601Full, (112, 65, 48), (0, 191, 0)),
        (.bt601Full, (79, 191, 208), (191, 0, 191)),
        (.bt601Full, (57, 96, 224), (192, 0, 0)),
        (.bt601Full, (22, 224, 112), (0, 0, 192)),
        (.bt601Full, (255, 128, 128), (255, 255, 255)),
        (.bt601Full, (0, 128, 128), (0, 0, 0)),
        (.bt709Limited, (180, 128, 128), (191, 191, 191)),
        (.bt709Limited, (168, 44, 136), (191, 191, 0)),
        (.bt709Limited, (145, 147, 44), (0, 191, 190)),
        (.bt709Limited, (133, 63, 52), (0, 191, 0)),
        (.bt709Limited, (63, 193, 204), (191, 0, 192)),
        (.bt709Limited, (51, 109, 212), (191, 0, 1)),
        (.bt709Limited, (28, 212, 120), (0, 0, 191)),
        (.bt709Limited, (235, 128, 128), (255, 255, 255)),
        (.bt709Limited, (16, 128, 128), (0, 0, 0)),
        (.bt709Full, (191, 128, 128), (191, 191, 191)),
        (.bt709Full, (177, 32, 137), (191, 191, 0)),
        (.bt709Full, (150, 150, 32), (0, 191, 191)),
        (.bt709Full, (137, 54, 41), (0, 192, 0)),
        (.bt709Full, (54, 202, 215), (191, 0, 191)),
        (.bt709Full, (41, 106, 224), (192, 0, 0)),
        (.bt709Full, (14, 224, 119), (0, 0, 192)),
        (.bt709Full, (255, 128, 128), (255, 255, 255)),
        (.bt709Full, (0, 128, 128), (0, 0, 0)),
    ]

    /// The documented bound: 2 grey levels for the limited ranges, 1 for the full ranges.
    static func tolerance(_ colorSpace: YUVColorSpace) -> Int {
        switch colorSpace {
        case .bt601Limited, .bt709Limited: return 2
        case .bt601Full, .bt709Full: return 1
        }
    }

    /// One I420 frame, 2 × 2 pixels of one colour.
    static func convertSolid(_ yuv: (UInt8, UInt8, UInt8), _ colorSpace: YUVColorSpace) throws -> (Int, Int, Int) {
        let frame: [UInt8] = [yuv.0, yuv.0, yuv.0, yuv.0, yuv.1, yuv.2]
        let image = try frame.withUnsafeBytes { buffer in
            try YUVConversion.rgbImage(buffer: buffer, format: .i420, width: 2, height: 2, colorSpace: colorSpace)
        }
        let pixel = try #require(image[1, 1])
        return (Int(pixel.red), Int(pixel.green), Int(pixel.blue))
    }

    @Test func colourBarsMatchTheFormula() throws {
        for (colorSpace, yuv, expected) in Self.bars {
            let actual = try Self.convertSolid(yuv, colorSpace)
            let bound = Self.tolerance(colorSpace)
            #expect(abs(actual.0 - expected.0) <= bound && abs(actual.1 - expected.1) <= bound
                && abs(actual.2 - expected.2) <= bound,
                "\(colorSpace) YUV \(yuv): \(actual), formula \(expected) ± \(bound)")
        }
    }

    /// The bars also tell the matrices apart: BT.709 values read as BT.601 give other colours.
    @Test func matrixAndRangeChangeTheResult() throws {
        let yellow709: (UInt8, UInt8, UInt8) = (168, 44, 136)
        let as601 = try Self.convertSolid(yellow709, .bt601Limited)
        #expect(abs(as601.1 - 191) > 5, "BT.709 yellow read as BT.601: \(as601)")
        let grey: (UInt8, UInt8, UInt8) = (180, 128, 128)
        #expect(try Self.convertSolid(grey, .bt601Full) == (180, 180, 180))
        #expect(try Self.convertSolid(grey, .bt601Limited) == (191, 191, 191))
    }

    /// The ITU-R formula in `Double`, rounded and clamped to 0…255, for one Y′CbCr triple.
    static func formula(_ y: Int, _ cb: Int, _ cr: Int, _ colorSpace: YUVColorSpace) -> (rgb: [Double], inGamut: Bool) {
        let (kr, kb): (Double, Double) = switch colorSpace {
        case .bt601Limited, .bt601Full: (0.299, 0.114)
        case .bt709Limited, .bt709Full: (0.2126, 0.0722)
        }
        let luma: Double, blueDifference: Double, redDifference: Double
        switch colorSpace {
        case .bt601Limited, .bt709Limited:
            luma = Double(y - 16) / 219
            blueDifference = Double(cb - 128) / 224
            redDifference = Double(cr - 128) / 224
        case .bt601Full, .bt709Full:
            luma = Double(y) / 255
            blueDifference = Double(cb - 128) / 255
            redDifference = Double(cr - 128) / 255
        }
        let red = luma + 2 * (1 - kr) * redDifference
        let blue = luma + 2 * (1 - kb) * blueDifference
        let green = (luma - kr * red - kb * blue) / (1 - kr - kb)
        let scaled = [red, green, blue].map { 255 * $0 }
        return (scaled, scaled.allSatisfy { (-0.5...255.5).contains($0) })
    }

    /// Y′ and chroma on a grid over their nominal ranges (16…235 and 16…240 for limited range),
    /// each in-gamut triple checked, pixels replicated 2 × 2 so that every pixel has its own chroma.
    @Test(arguments: YUVColorSpace.allCases)
    func everyInGamutTripleIsWithinTheBound(colorSpace: YUVColorSpace) throws {
        let limited = colorSpace == .bt601Limited || colorSpace == .bt709Limited
        let lumaValues = Array(stride(from: limited ? 16 : 0, through: limited ? 235 : 255, by: 3))
        let chromaValues = Array(stride(from: limited ? 16 : 0, through: limited ? 240 : 255, by: 4))
        let blocks = chromaValues.count * chromaValues.count
        let width = 2 * blocks
        var worst = 0
        var checked = 0
        for y in lumaValues {
            // One 2-row frame per Y′ value: block k (pixels 2k, 2k + 1) has chroma pair k.
            let luma = [UInt8](repeating: UInt8(y), count: 2 * width)
            let cb = (0..<blocks).map { UInt8(chromaValues[$0 % chromaValues.count]) }
            let cr = (0..<blocks).map { UInt8(chromaValues[$0 / chromaValues.count]) }
            let image = try (luma + cb + cr).withUnsafeBytes { buffer in
                try YUVConversion.rgbImage(
                    buffer: buffer, format: .i420, width: width, height: 2, colorSpace: colorSpace,
                    chromaUpsampling: .nearest)
            }
            for block in 0..<blocks {
                let expected = Self.formula(y, Int(cb[block]), Int(cr[block]), colorSpace)
                guard expected.inGamut else { continue }
                checked += 1
                let offset = 3 * (2 * block + 1)
                for channel in 0..<3 {
                    let rounded = Int(expected.rgb[channel].rounded())
                    worst = max(worst, abs(Int(image.pixels[offset + channel]) - min(max(rounded, 0), 255)))
                }
            }
        }
        #expect(checked > 10_000)
        #expect(worst <= Self.tolerance(colorSpace), "\(colorSpace): \(worst) grey levels from the formula")
    }
}

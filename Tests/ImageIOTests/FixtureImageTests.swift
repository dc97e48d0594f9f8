import Testing
@testable import ImageIO

/// Decodes every canonical fixture image; sizes are the ones listed in the fixtures README.
@Suite struct FixtureImageTests {
    static let readmeSizes: [(name: String, width: Int, height: Int)] = [
        ("bus", 810, 1080), ("zidane", 1280, 720), ("astronaut", 512, 512),
        ("grace_hopper", 512, 600), ("camera", 512, 512), ("coffee", 600, 400),
        ("mp_pose_sitting", 960, 640), ("mp_pose_sitting_rot90cw", 640, 960),
        ("mp_hand_thumb_up", 640, 521), ("hagrid_palm", 292, 292), ("hagrid_peace", 292, 292),
        ("hagrid_take_photo", 292, 292), ("mp_thumbs_up_black", 1280, 853), ("chelsea", 451, 300),
    ]

    @Test(arguments: readmeSizes.map(\.name))
    func decodesFixtureWithItsListedSize(name: String) throws {
        let expected = Self.readmeSizes.first { $0.name == name }!
        let decoded = try ImageDecoder.decode(contentsOfFile: try Fixtures.path("images/\(name).png"))
        #expect(decoded.format == .png)
        #expect(decoded.image.width == expected.width)
        #expect(decoded.image.height == expected.height)
        #expect(decoded.image.pixels.count == expected.width * expected.height * 3)
    }

    @Test func grayFixtureIsGrayReplicated() throws {
        // README: camera is gray2rgb (gray replicated to 3 channels).
        let camera = try PNGCodec.decode(contentsOfFile: try Fixtures.path("images/camera.png"))
        var allGray = true
        for pixel in stride(from: 0, to: camera.pixels.count, by: 3)
            where camera.pixels[pixel] != camera.pixels[pixel + 1] || camera.pixels[pixel] != camera.pixels[pixel + 2] {
            allGray = false
        }
        #expect(allGray)
    }

    @Test func rotatedFixtureIsTheClockwiseRotationOfItsSource() throws {
        // README: mp_pose_sitting_rot90cw = mp_pose_sitting rotated 90° clockwise, which is what
        // displaying an image tagged EXIF 6 (right-top) does.
        let source = try PNGCodec.decode(contentsOfFile: try Fixtures.path("images/mp_pose_sitting.png"))
        let rotated = try PNGCodec.decode(contentsOfFile: try Fixtures.path("images/mp_pose_sitting_rot90cw.png"))
        #expect(source.applyingExifOrientation(.rightTop) == rotated)
        #expect(rotated.applyingExifOrientation(.leftBottom) == source)
    }
}

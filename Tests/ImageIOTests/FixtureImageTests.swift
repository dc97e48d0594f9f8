import Foundation
import TestSupport
import Testing
@testable import ImageIO

/// Decodes every golden-test image (`samples/fixtures/images`, made by `scripts/fetch_samples.sh`);
/// sizes and pixel hashes are the ones `scripts/make_fixtures.py` recorded in
/// `Tests/Fixtures/inputs.json` from Pillow's decoding, the pixels MediaPipe was given.
@Suite struct FixtureImageTests {
    static func recorded() throws -> [[String: Any]] {
        (try Fixtures.json("inputs.json") as! [String: Any])["images"] as! [[String: Any]]
    }

    @Test func decodesEveryFixtureWithItsRecordedSizeAndPixels() throws {
        let images = try Self.recorded()
        try #require(images.count >= 14)
        for entry in images {
            let decoded = try ImageDecoder.decode(contentsOfFile: try Fixtures.path(entry["file"] as! String))
            let name = entry["name"] as! String
            #expect(decoded.format == .png, "\(name)")
            #expect(decoded.image.width == entry["width"] as! Int, "\(name)")
            #expect(decoded.image.height == entry["height"] as! Int, "\(name)")
            #expect(FNV1a.hash(decoded.image.pixels) == entry["rgb_fnv1a64"] as! String, "\(name): pixels")
        }
    }

    @Test func grayFixtureIsGrayReplicated() throws {
        // scripts/fixture_images.py: camera is a gray photo, its value replicated to 3 channels.
        let camera = try PNGCodec.decode(contentsOfFile: try Fixtures.path("images/camera.png"))
        var allGray = true
        for pixel in stride(from: 0, to: camera.pixels.count, by: 3)
            where camera.pixels[pixel] != camera.pixels[pixel + 1] || camera.pixels[pixel] != camera.pixels[pixel + 2] {
            allGray = false
        }
        #expect(allGray)
    }

    @Test func rotatedFixtureIsTheClockwiseRotationOfItsSource() throws {
        // scripts/fixture_images.py: bus_man_rot90cw = bus_man rotated 90° clockwise, which is what
        // displaying an image tagged EXIF 6 (right-top) does.
        let source = try PNGCodec.decode(contentsOfFile: try Fixtures.path("images/bus_man.png"))
        let rotated = try PNGCodec.decode(contentsOfFile: try Fixtures.path("images/bus_man_rot90cw.png"))
        #expect(source.applyingExifOrientation(.rightTop) == rotated)
        #expect(rotated.applyingExifOrientation(.leftBottom) == source)
    }
}

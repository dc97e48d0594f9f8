import Foundation
import ImageIO
import Pipeline

/// The frames of `--video`: a folder of PNG/JPEG frames sorted by name, or a
/// YUV4MPEG2 stream (a file, or `-` for standard input).
final class FrameInput {
    struct Frame {
        /// The frame's file name, or "frame N" for a stream.
        let name: String
        let image: RGBImage
        /// Frame index / frames per second, in milliseconds, rounded.
        let timestampMs: Int
    }

    private enum Source {
        case folder([String])
        case stream(Y4MReader)
    }

    private let source: Source
    private let framesPerSecond: Double
    private var index = 0

    private init(source: Source, framesPerSecond: Double) {
        self.source = source
        self.framesPerSecond = framesPerSecond
    }

    /// Opens `path`: a folder (timestamps from `folderFramesPerSecond`) or a
    /// Y4M stream (timestamps from its header's frame rate).
    static func open(_ path: String, folderFramesPerSecond: Double) throws -> FrameInput {
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
                .filter { ["png", "jpg", "jpeg"].contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
                .sorted()
            guard !names.isEmpty else { throw CommandFailure("\(path): no PNG or JPEG frames in the folder") }
            return FrameInput(source: .folder(names.map { path + "/" + $0 }), framesPerSecond: folderFramesPerSecond)
        }
        do {
            let reader = try Y4MReader(path: path)
            return FrameInput(source: .stream(reader), framesPerSecond: reader.framesPerSecond)
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }

    /// Calls `body` with every frame (as an upright `MPImage`) in order, reporting progress
    /// on stderr every 25 frames and at the end.
    func forEachFrame(_ body: (Frame, MPImage) throws -> Void) throws {
        var count = 0
        while let frame = try next() {
            try body(frame, try MPImage(rgbImage: frame.image))
            count += 1
            if count % 25 == 0 { printError("landmarker: \(count) frames") }
        }
        printError("landmarker: done, \(count) frames")
    }

    /// Decodes every frame of a folder (sorted by name, EXIF orientation applied) into memory.
    static func decodeFolder(_ path: String) throws -> [MPImage] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure("\(path): not a folder of PNG/JPEG frames")
        }
        // The frame rate only sets `Frame.timestampMs`, which is not used here.
        let input = try FrameInput.open(path, folderFramesPerSecond: 25)
        var images: [MPImage] = []
        while let frame = try input.next() {
            do {
                images.append(try MPImage(rgbImage: frame.image))
            } catch {
                throw CommandFailure("\(frame.name): \(error)")
            }
        }
        return images
    }

    /// Decodes an image file, with the path in the error message.
    static func loadImage(_ path: String) throws -> MPImage {
        do {
            return try MPImage(contentsOfFile: path)
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }

    /// The next frame, or nil at the end.
    func next() throws -> Frame? {
        let timestampMs = Int((Double(index) * 1000 / framesPerSecond).rounded())
        defer { index += 1 }
        switch source {
        case .folder(let paths):
            guard index < paths.count else { return nil }
            do {
                let decoded = try ImageDecoder.decode(contentsOfFile: paths[index])
                let image = decoded.exifOrientation.map { decoded.image.applyingExifOrientation($0) } ?? decoded.image
                return Frame(name: paths[index], image: image, timestampMs: timestampMs)
            } catch {
                throw CommandFailure("\(paths[index]): \(error)")
            }
        case .stream(let reader):
            do {
                guard let image = try reader.nextFrame() else { return nil }
                return Frame(name: "frame \(index)", image: image, timestampMs: timestampMs)
            } catch {
                throw CommandFailure("frame \(index): \(error)")
            }
        }
    }
}

import FuzzSupport
import ImageIO

/// The parser an input drives, from its first byte (modulo the number of
/// kinds); the bytes after it are the parser's input.
enum InputKind: UInt8, CaseIterable {
    /// PNG bytes as they are, through `PNGCodec.decode` (colour-chunk
    /// stripping, then libpng's simplified API).
    case png
    /// PNG bytes whose chunk CRCs are recomputed first (`PNGChunkCRC`), so
    /// that edits inside chunks reach libpng's chunk parsers instead of
    /// failing its CRC check.
    case pngWithFixedCRCs
    /// An image file through `MPImage(data:)`: format sniffing, PNG or JPEG
    /// (TurboJPEG) decoding, EXIF orientation read and applied to the pixels.
    case imageFile
    /// `ExifOrientation.fromJPEG` on the bytes: the JPEG marker walk and the
    /// APP1 "Exif" segment.
    case jpegMarkers
    /// The bytes as the TIFF structure of an APP1 "Exif" segment, wrapped in
    /// a minimal JPEG, through `ExifOrientation.fromJPEG`.
    case exifTIFF
    /// A YUV4MPEG2 stream read to its end with `Y4MReader`.
    case y4mStream
    /// A `.task` model asset bundle (stored zip) read with `ModelAssetBundle`.
    case taskBundle
    /// A raw pixel buffer behind a geometry header (`RawPixelHeader`),
    /// through `MPImage(pixels:width:height:format:rowStride:orientation:)`.
    case rawPixels

    /// Decode limits for the encoded formats: a small pixel cap keeps every
    /// execution fast and every legitimate allocation far below the fuzzer's
    /// `-malloc_limit_mb`, so an allocation past it means one that the cap
    /// did not bound.
    static let decodeLimits = DecodeLimits(maxPixelCount: 1 << 20, maxEncodedByteCount: 1 << 20)

    /// The kind an input picks and the parser's bytes; `nil` for an empty input.
    static func split(_ input: UnsafeRawBufferPointer) -> (InputKind, UnsafeRawBufferPointer)? {
        guard let first = input.first else { return nil }
        // `allCases.count` is 8: the remainder is a valid raw value.
        let kind = InputKind(rawValue: first % UInt8(allCases.count))!
        return (kind, UnsafeRawBufferPointer(rebasing: input.dropFirst()))
    }

    /// The fuzz input that makes this kind parse `payload`.
    func input(_ payload: [UInt8]) -> [UInt8] {
        [rawValue] + payload
    }

    /// Drives this kind's parser on `payload`.
    func run(_ payload: UnsafeRawBufferPointer) -> Outcome {
        switch self {
        case .png: return ImageDrivers.decodePNG(Array(payload))
        case .pngWithFixedCRCs: return ImageDrivers.decodePNG(PNGChunkCRC.fixed(Array(payload)))
        case .imageFile: return ImageDrivers.loadImageFile(Array(payload))
        case .jpegMarkers: return ImageDrivers.readOrientation(jpeg: payload)
        case .exifTIFF: return ImageDrivers.readOrientation(tiff: payload)
        case .y4mStream: return Y4MDriver.readStream(payload, limits: Self.decodeLimits)
        case .taskBundle: return TaskBundleDriver.readBundle(Array(payload))
        case .rawPixels: return RawPixelDriver.makeImage(payload)
        }
    }
}

// Stand-ins for what the app gets from UIKit and AVFoundation on iOS: the device orientation,
// the camera position, and camera frames. The frames here come from a photo, stored as an
// upright phone's front camera stores them (a quarter turn counter-clockwise from the scene) and
// encoded as YUYV, the format V4L2 webcams deliver (BT.601 limited range, each pair of pixels
// sharing its chroma).
import ImageIO

enum DeviceOrientation {
  case portrait, portraitUpsideDown, landscapeLeft, landscapeRight
}

enum CameraPosition {
  case front, back
}

/// One YUYV frame: `height` rows of `width / 2` groups Y0 U Y1 V, `bytesPerRow` bytes apart.
struct CameraFrame {
  let bytes: [UInt8]
  let width: Int
  let height: Int
  let bytesPerRow: Int
  let timestampInMilliseconds: Int
}

struct PhotoCamera {
  /// The scene turned a quarter turn counter-clockwise: a front camera's frame of a phone held
  /// upright, which `.right` turns back (and `.leftMirrored` shows mirrored).
  let sensorImage: RGBImage

  init(photoPath: String) throws {
    // The photo as a viewer shows it (its EXIF orientation applied), then turned onto the sensor.
    let decoded = try ImageDecoder.decode(contentsOfFile: photoPath)
    let photo = decoded.exifOrientation.map { decoded.image.applyingExifOrientation($0) } ?? decoded.image
    sensorImage = photo.applyingExifOrientation(.leftBottom)
  }

  /// The scene as a YUYV frame taken at `timestampInMilliseconds`, rows padded to 64 bytes.
  func frame(at timestampInMilliseconds: Int) -> CameraFrame {
    let width = sensorImage.width / 2 * 2
    let height = sensorImage.height
    let bytesPerRow = (2 * width + 63) / 64 * 64
    var bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
    for y in 0..<height {
      for x in stride(from: 0, to: width, by: 2) {
        let (y0, cb0, cr0) = Self.ycbcr(sensorImage[x, y]!)
        let (y1, cb1, cr1) = Self.ycbcr(sensorImage[x + 1, y]!)
        let group = y * bytesPerRow + 2 * x
        bytes[group] = Self.byte(y0)
        bytes[group + 1] = Self.byte((cb0 + cb1) / 2)
        bytes[group + 2] = Self.byte(y1)
        bytes[group + 3] = Self.byte((cr0 + cr1) / 2)
      }
    }
    return CameraFrame(
      bytes: bytes, width: width, height: height, bytesPerRow: bytesPerRow,
      timestampInMilliseconds: timestampInMilliseconds)
  }

  /// ITU-R BT.601's 8-bit limited-range equations.
  private static func ycbcr(_ pixel: (red: UInt8, green: UInt8, blue: UInt8)) -> (Double, Double, Double) {
    let r = Double(pixel.red), g = Double(pixel.green), b = Double(pixel.blue)
    return (16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255,
            128 + (-37.797 * r - 74.203 * g + 112 * b) / 255,
            128 + (112 * r - 93.786 * g - 18.214 * b) / 255)
  }

  private static func byte(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
}

import ImageIO

/// A validated image-to-tensor conversion: output size, sampler and the transform reported to
/// the caller, built once per call.
struct WarpPlan {
    /// Largest accepted tensor side, pixels.
    static let maxOutputSide = 16_384
    /// Largest accepted ROI centre coordinate or size, pixels; keeps every float32 sample
    /// position finite.
    static let maxROIMagnitude = 1e7

    let outputWidth: Int
    let outputHeight: Int
    /// `outputHeight × outputWidth × 3`.
    let outputElementCount: Int
    let transform: ImageToTensor.Transform
    /// The warp's map and border, applied row by row.
    let sampler: FixedPointBilinearSampler

    init(image: RGBImage, roi: RotatedPixelRect, options: ImageToTensor.Options) throws(ImageWarpError) {
        let width = options.outputWidth, height = options.outputHeight
        guard (1...Self.maxOutputSide).contains(width), (1...Self.maxOutputSide).contains(height) else {
            throw .invalidSize(width: width, height: height)
        }
        guard options.rangeMin.isFinite, options.rangeMax.isFinite, options.rangeMin < options.rangeMax else {
            throw .invalidValueRange(min: options.rangeMin, max: options.rangeMax)
        }
        let magnitude = Self.maxROIMagnitude
        guard roi.isValid, abs(roi.centerX) <= magnitude, abs(roi.centerY) <= magnitude,
              roi.width <= magnitude, roi.height <= magnitude else {
            throw .invalidROI(roi)
        }
        outputWidth = width
        outputHeight = height
        // Both sides are at most 2^14, so the count is at most 3 × 2^28.
        outputElementCount = width * height * 3

        // MediaPipe holds the ROI in float32 and letterboxes it in float32.
        let centerX = Float(roi.centerX), centerY = Float(roi.centerY)
        let rotation = Float(roi.rotation)
        var roiWidth = Float(roi.width), roiHeight = Float(roi.height)
        guard roiWidth > 0, roiHeight > 0 else { throw .invalidROI(roi) }
        var padding = LetterboxPadding.zero
        if options.keepAspectRatio {
            let padded = ROIGeometry.letterbox(width: roiWidth, height: roiHeight, tensorWidth: width, tensorHeight: height)
            (roiWidth, roiHeight) = (padded.width, padded.height)
            padding = .init(left: padded.horizontal, top: padded.vertical, right: padded.horizontal, bottom: padded.vertical)
        }
        let corners = ROIGeometry.boxPoints(
            centerX: centerX, centerY: centerY, width: roiWidth, height: roiHeight,
            angleDegrees: ROIGeometry.mediaPipeAngleDegrees(rotation: rotation))
        guard let map = ProjectiveMap(topLeft: corners[1], topRight: corners[2], bottomRight: corners[3],
                                      bottomLeft: corners[0], tensorWidth: width, tensorHeight: height) else {
            throw .invalidROI(roi)
        }
        sampler = FixedPointBilinearSampler(map: map, border: options.borderMode)
        transform = ImageToTensor.Transform(
            padding: padding,
            sampledROI: RotatedPixelRect(centerX: Double(centerX), centerY: Double(centerY),
                                         width: Double(roiWidth), height: Double(roiHeight), rotation: Double(rotation)),
            matrix: ROIGeometry.roiMatrix(centerX: centerX, centerY: centerY, width: roiWidth, height: roiHeight,
                                          rotation: rotation, imageWidth: image.width, imageHeight: image.height))
    }

    /// Samples the tensor rows `rows` (by default all of them) in order, handing each one
    /// (`outputWidth × 3` RGB bytes) to `body`. Rows are independent: any split of the rows gives
    /// the same bytes.
    func warpRows(
        image: RGBImage, rows: Range<Int>? = nil, _ body: (_ y: Int, _ row: UnsafeBufferPointer<UInt8>) -> Void
    ) {
        let width = outputWidth
        let positions = FixedPointBilinearSampler.RowScratch.capacity(outputWidth: width)
        // The sampler stores a pixel as four bytes: one byte of room past the row.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: width * 3 + 1) { row in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * positions) { coordinates in
                let scratch = FixedPointBilinearSampler.RowScratch(
                    x: coordinates.baseAddress!, y: coordinates.baseAddress! + positions)
                image.pixels.withUnsafeBufferPointer { pixels in
                    let source = pixels.baseAddress!
                    let rows = rows ?? 0..<outputHeight
                    for y in rows {
                        if (y &- rows.lowerBound) % SourceRegionWarmup.bandRows == 0 {
                            SourceRegionWarmup.read(image, source: source, map: sampler.map, outputWidth: width,
                                                    rows: y..<min(y &+ SourceRegionWarmup.bandRows, rows.upperBound))
                        }
                        sampler.sampleRow(y, image: image, source: source, outputWidth: width,
                                          scratch: scratch, into: row.baseAddress!)
                        body(y, UnsafeBufferPointer(start: row.baseAddress!, count: width * 3))
                    }
                }
            }
        }
    }

    /// ``warpRows(image:_:)`` with the sampler's plain reference form: the same rows, for the
    /// tests that hold the vectorised form to it.
    func referenceWarpRows(image: RGBImage, _ body: (_ y: Int, _ row: UnsafeBufferPointer<UInt8>) -> Void) {
        let width = outputWidth
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: width * 3) { row in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: width * 2) { coordinates in
                image.pixels.withUnsafeBufferPointer { pixels in
                    let source = pixels.baseAddress!
                    for y in 0..<outputHeight {
                        sampler.referenceSampleRow(y, image: image, source: source, outputWidth: width,
                                                   coordinates: coordinates.baseAddress!, into: row.baseAddress!)
                        body(y, UnsafeBufferPointer(row))
                    }
                }
            }
        }
    }
}

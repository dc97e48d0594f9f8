/// One SSD anchor, normalized to the detector input (fractions of its width and height).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct SSDAnchor: Sendable, Hashable {
    package var xCenter: Float
    package var yCenter: Float
    package var width: Float
    package var height: Float

    package init(xCenter: Float, yCenter: Float, width: Float, height: Float) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
    }
}

/// The SSD anchor grid of a detector (MediaPipe `SsdAnchorsCalculator`, docs/PIPELINE.md,
/// "SSD anchors"), for the configuration both detectors use: `aspect_ratios = [1.0]`,
/// `interpolated_scale_aspect_ratio = 1.0` (2 anchors per layer and cell) and
/// `fixed_anchor_size = true` (every anchor is 1 × 1).
///
/// With fixed-size anchors `min_scale`/`max_scale` (0.1484375 / 0.75 for both detectors) are
/// computed by MediaPipe but change nothing, so they are not modelled here.
///
/// Consecutive layers with the same stride form one feature map of size
/// `ceil(input / stride)` with `anchorsPerLayer × (layers in the group)` anchors per cell.
/// Anchors are ordered by feature-map group, then row, then column, then anchor within the
/// cell; anchor *i* belongs to row *i* of the detector's outputs.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct SSDAnchorOptions: Sendable, Hashable {
    /// Detector input width in pixels.
    package let inputWidth: Int
    /// Detector input height in pixels.
    package let inputHeight: Int
    /// One stride per layer, in pixels.
    package let strides: [Int]
    /// Anchor centre offset within a cell, in cells (0.5 = the cell centre).
    package let anchorOffsetX: Float
    /// Anchor centre offset within a cell, in cells (0.5 = the cell centre).
    package let anchorOffsetY: Float
    /// Anchors each layer contributes per cell (2 for one aspect ratio plus the
    /// interpolated-scale anchor).
    package let anchorsPerLayer: Int
    /// Total number of anchors the grid has.
    package let anchorCount: Int

    /// Largest grid accepted: far above any real detector, low enough to allocate.
    package static let maximumAnchorCount = 1 << 24

    /// Validates the options and computes the anchor count with overflow checks.
    ///
    /// - Throws: ``PipelineInputError/invalidOption(name:reason:)`` for a non-positive size,
    ///   stride or anchor count, or an empty stride list;
    ///   ``PipelineInputError/sizeOutOfRange(what:)`` if the grid exceeds
    ///   ``maximumAnchorCount``.
    package init(
        inputWidth: Int, inputHeight: Int, strides: [Int],
        anchorOffsetX: Float = 0.5, anchorOffsetY: Float = 0.5, anchorsPerLayer: Int = 2
    ) throws {
        guard inputWidth > 0, inputHeight > 0 else {
            throw PipelineInputError.invalidOption(
                name: "input size", reason: "\(inputWidth)×\(inputHeight) is not positive")
        }
        guard !strides.isEmpty else {
            throw PipelineInputError.invalidOption(name: "strides", reason: "no layers")
        }
        guard strides.allSatisfy({ $0 > 0 }) else {
            throw PipelineInputError.invalidOption(name: "strides", reason: "\(strides) has a non-positive stride")
        }
        guard anchorsPerLayer > 0 else {
            throw PipelineInputError.invalidOption(
                name: "anchorsPerLayer", reason: "\(anchorsPerLayer) is not positive")
        }
        var total = 0
        for group in Self.featureMapGroups(strides: strides) {
            // ceil(input / stride) ≤ input because stride ≥ 1: no overflow in the division form.
            let mapWidth = (inputWidth - 1) / group.stride + 1
            let mapHeight = (inputHeight - 1) / group.stride + 1
            let (cells, o1) = mapWidth.multipliedReportingOverflow(by: mapHeight)
            let (perCell, o2) = anchorsPerLayer.multipliedReportingOverflow(by: group.layers)
            let (groupCount, o3) = cells.multipliedReportingOverflow(by: perCell)
            let (sum, o4) = total.addingReportingOverflow(groupCount)
            guard !(o1 || o2 || o3 || o4), sum <= Self.maximumAnchorCount else {
                throw PipelineInputError.sizeOutOfRange(what: "SSD anchor grid")
            }
            total = sum
        }
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.strides = strides
        self.anchorOffsetX = anchorOffsetX
        self.anchorOffsetY = anchorOffsetY
        self.anchorsPerLayer = anchorsPerLayer
        self.anchorCount = total
    }

    /// Constants known to be valid (the presets below); the tests check their counts.
    private init(presetInputSize size: Int, strides: [Int], anchorCount: Int) {
        self.inputWidth = size
        self.inputHeight = size
        self.strides = strides
        self.anchorOffsetX = 0.5
        self.anchorOffsetY = 0.5
        self.anchorsPerLayer = 2
        self.anchorCount = anchorCount
    }

    /// pose_detection.tflite: 224×224, 5 layers, strides 8, 16, 32, 32, 32 →
    /// 28²×2 + 14²×2 + 7²×6 = 2254 anchors.
    package static let poseDetector = SSDAnchorOptions(
        presetInputSize: 224, strides: [8, 16, 32, 32, 32], anchorCount: 2254)

    /// palm_detection_full/lite.tflite: 192×192, 4 layers, strides 8, 16, 16, 16 →
    /// 24²×2 + 12²×6 = 2016 anchors.
    package static let palmDetector = SSDAnchorOptions(
        presetInputSize: 192, strides: [8, 16, 16, 16], anchorCount: 2016)

    /// face_detection_short_range.tflite: 128×128, 4 layers, strides 8, 16, 16, 16 →
    /// 16²×2 + 8²×6 = 896 anchors.
    package static let faceDetector = SSDAnchorOptions(
        presetInputSize: 128, strides: [8, 16, 16, 16], anchorCount: 896)

    /// The anchors, in output-row order. Every anchor is 1 × 1; its centre is
    /// `((col + offsetX) / mapWidth, (row + offsetY) / mapHeight)`.
    package func makeAnchors() -> [SSDAnchor] {
        var anchors: [SSDAnchor] = []
        anchors.reserveCapacity(anchorCount)
        for group in Self.featureMapGroups(strides: strides) {
            // Bounded by the overflow-checked count computed in init.
            let mapWidth = (inputWidth - 1) / group.stride + 1
            let mapHeight = (inputHeight - 1) / group.stride + 1
            let perCell = anchorsPerLayer * group.layers
            for row in 0..<mapHeight {
                let yCenter = (Float(row) + anchorOffsetY) / Float(mapHeight)
                for column in 0..<mapWidth {
                    let xCenter = (Float(column) + anchorOffsetX) / Float(mapWidth)
                    let anchor = SSDAnchor(xCenter: xCenter, yCenter: yCenter, width: 1, height: 1)
                    anchors.append(contentsOf: repeatElement(anchor, count: perCell))
                }
            }
        }
        return anchors
    }

    /// Runs of equal consecutive strides: (stride, number of layers in the run).
    private static func featureMapGroups(strides: [Int]) -> [(stride: Int, layers: Int)] {
        var groups: [(stride: Int, layers: Int)] = []
        for stride in strides {
            if let last = groups.last, last.stride == stride {
                groups[groups.count - 1].layers += 1
            } else {
                groups.append((stride, 1))
            }
        }
        return groups
    }
}

/// The spatial arithmetic shared by the convolution kernels: which input
/// pixel each output pixel's filter taps read.
///
/// Output pixel `(oy, ox)` reads, for tap `(ky, kx)`, input pixel
/// `(oy·strideHeight − padTop + ky·dilationHeight,
///   ox·strideWidth − padLeft + kx·dilationWidth)`; taps outside the input
/// read zero. The bottom/right padding is whatever the output size implies.
/// All sizes are in pixels. Any positive geometry is safe to run: the
/// kernels clip every filter window to the input.
public struct ConvolutionGeometry: Sendable, Hashable {
    public let inputHeight: Int
    public let inputWidth: Int
    public let outputHeight: Int
    public let outputWidth: Int
    public let kernelHeight: Int
    public let kernelWidth: Int
    public let strideHeight: Int
    public let strideWidth: Int
    public let dilationHeight: Int
    public let dilationWidth: Int
    /// Zero rows above the input.
    public let padTop: Int
    /// Zero columns left of the input.
    public let padLeft: Int

    /// A geometry with explicit output size and leading padding. All values
    /// must be positive (padding non-negative); the caller validated them.
    public init(
        inputHeight: Int, inputWidth: Int, outputHeight: Int, outputWidth: Int,
        kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
        dilationHeight: Int, dilationWidth: Int, padTop: Int, padLeft: Int
    ) {
        precondition(
            min(inputHeight, inputWidth, outputHeight, outputWidth, kernelHeight, kernelWidth,
                strideHeight, strideWidth, dilationHeight, dilationWidth) >= 1
                && min(padTop, padLeft) >= 0,
            "unvalidated convolution geometry")
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
        self.outputHeight = outputHeight
        self.outputWidth = outputWidth
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideHeight = strideHeight
        self.strideWidth = strideWidth
        self.dilationHeight = dilationHeight
        self.dilationWidth = dilationWidth
        self.padTop = padTop
        self.padLeft = padLeft
    }

    /// The geometry TFLite's `padding` option implies (`Padding.outputSize`),
    /// or nil if a size is not positive or the output would be empty.
    public init?(
        inputHeight: Int, inputWidth: Int, kernelHeight: Int, kernelWidth: Int,
        strideHeight: Int, strideWidth: Int, dilationHeight: Int, dilationWidth: Int,
        padding: Padding
    ) {
        guard
            let rows = padding.outputSize(
                input: inputHeight, filter: kernelHeight, stride: strideHeight,
                dilation: dilationHeight),
            let columns = padding.outputSize(
                input: inputWidth, filter: kernelWidth, stride: strideWidth,
                dilation: dilationWidth)
        else { return nil }
        self.init(
            inputHeight: inputHeight, inputWidth: inputWidth,
            outputHeight: rows.size, outputWidth: columns.size,
            kernelHeight: kernelHeight, kernelWidth: kernelWidth,
            strideHeight: strideHeight, strideWidth: strideWidth,
            dilationHeight: dilationHeight, dilationWidth: dilationWidth,
            padTop: rows.padBefore, padLeft: columns.padBefore)
    }

    /// Filter rows of output row `oy` that land inside the input.
    @inline(__always)
    func validKernelRows(outputRow oy: Int) -> Range<Int> {
        Self.validTaps(
            start: oy * strideHeight - padTop, dilation: dilationHeight,
            inputSize: inputHeight, kernelSize: kernelHeight)
    }

    /// Filter columns of output column `ox` that land inside the input.
    @inline(__always)
    func validKernelColumns(outputColumn ox: Int) -> Range<Int> {
        Self.validTaps(
            start: ox * strideWidth - padLeft, dilation: dilationWidth,
            inputSize: inputWidth, kernelSize: kernelWidth)
    }

    /// Output rows whose every filter row lands inside the input (possibly
    /// empty): the rows the depthwise band kernels take.
    var interiorRows: Range<Int> {
        // oy·stride − padTop ≥ 0
        let first = min(outputHeight, (padTop + strideHeight - 1) / strideHeight)
        // oy·stride − padTop + (kernelHeight − 1)·dilation ≤ inputHeight − 1
        let lastStart = inputHeight - 1 + padTop - (kernelHeight - 1) * dilationHeight
        let end = lastStart < 0 ? 0 : min(outputHeight, lastStart / strideHeight + 1)
        return first..<max(first, end)
    }

    /// Output columns whose every filter column lands inside the input
    /// (possibly empty). Columns before and after it are the border.
    var interiorColumns: Range<Int> {
        // ox·stride − padLeft ≥ 0
        let first = min(outputWidth, (padLeft + strideWidth - 1) / strideWidth)
        // ox·stride − padLeft + (kernelWidth − 1)·dilation ≤ inputWidth − 1
        let lastStart = inputWidth - 1 + padLeft - (kernelWidth - 1) * dilationWidth
        let end = lastStart < 0 ? 0 : min(outputWidth, lastStart / strideWidth + 1)
        return first..<max(first, end)
    }

    /// Taps `k` in `0..<kernelSize` with `0 ≤ start + k·dilation < inputSize`.
    @inline(__always)
    static func validTaps(start: Int, dilation: Int, inputSize: Int, kernelSize: Int) -> Range<Int> {
        let lower = start >= 0 ? 0 : (-start + dilation - 1) / dilation
        let upper = start >= inputSize ? 0 : min(kernelSize, (inputSize - 1 - start) / dilation + 1)
        return lower < upper ? lower..<upper : lower..<lower
    }
}

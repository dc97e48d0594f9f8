#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemInterface

/// Reads uncompressed video frames from a YUV4MPEG2 (`.y4m`) stream, one frame at a time.
///
/// The stream is read incrementally with `read(2)` into a 64 KiB buffer plus one reused frame
/// buffer, so memory use is bounded by one frame whatever the stream's length; it can come from
/// a file or from standard input (`ffmpeg -i in.mp4 -f yuv4mpegpipe - | tool -`).
///
/// Accepted streams: 8-bit planar Y'CbCr with colour space `C420jpeg`, `C420paldv`, `C420mpeg2`,
/// `C420` (all 4:2:0; the chroma siting variants are treated alike), `C444` or `Cmono`; no `C`
/// parameter means `420jpeg`, as the format specifies. Other colour spaces (`422`, `411`,
/// `444alpha`, high bit depths) are rejected with ``Y4MError/unsupportedColourSpace(_:)``.
/// Interlaced streams (`It`, `Ib`, `Im`) are returned as whole frames, fields not separated.
/// `A` (pixel aspect) and `X` (extensions) are ignored, as are frame-line parameters.
///
/// Pixels are converted to RGB8 by libyuv (``YUVConversion``'s converters) with ITU-R BT.601
/// limited ("TV") range coefficients — what `ffmpeg -f yuv4mpegpipe` writes by default
/// (yuv420p, tv range, from RGB sources) — and 4:2:0 chroma is upsampled linearly
/// (``YUVChromaUpsampling/linear``); mono frames get neutral chroma (grey).
///
/// Not thread-safe: use one reader from one task at a time.
public final class Y4MReader {
    /// How the chroma planes of a frame are laid out.
    public enum ChromaSampling: Sendable, Equatable {
        /// Chroma planes of `⌈W/2⌉ × ⌈H/2⌉` samples (`C420`, `C420jpeg`, `C420paldv`, `C420mpeg2`).
        case yuv420
        /// Chroma planes of `W × H` samples (`C444`).
        case yuv444
        /// No chroma planes (`Cmono`): grey frames.
        case mono
    }

    /// The longest accepted stream or frame header line, in bytes, line feed excluded.
    public static let maxHeaderLineLength = 4096
    /// The frame rate reported when the header has no `F` parameter or says `F0:0` (unknown).
    public static let defaultFramesPerSecond = 25.0

    /// Frame width in pixels (> 0), from the header's `W`.
    public let width: Int
    /// Frame height in pixels (> 0), from the header's `H`.
    public let height: Int
    /// Frames per second from the header's `F num:den`, or ``defaultFramesPerSecond``.
    public let framesPerSecond: Double
    /// The chroma layout named by the header's `C`.
    public let chromaSampling: ChromaSampling
    /// How many frames ``nextFrame()`` has returned so far.
    public private(set) var framesRead = 0

    private var stream: BufferedDescriptor
    private let ownsDescriptor: Bool
    /// Bytes of one frame's planes: Y, then Cb and Cr (if any).
    private let frameByteCount: Int
    private var frameBytes: [UInt8]
    /// For mono streams, one row of ⌈W/2⌉ neutral chroma samples (128) that stands for every
    /// row of both chroma planes; empty otherwise.
    private let neutralChromaRow: [UInt8]
    private var reachedEnd = false
    private var failure: Y4MError?

    /// Opens the stream at `path` (`"-"` reads standard input) and parses its header.
    /// - Parameter limits: `maxPixelCount` caps `W × H`; `maxEncodedByteCount` is not used,
    ///   since a stream's length is not bounded.
    /// - Throws: ``Y4MError`` if the file cannot be opened or the header is invalid,
    ///   unsupported or larger than `limits` allow.
    public convenience init(path: String, limits: DecodeLimits = DecodeLimits()) throws(Y4MError) {
        if path == "-" {
            try self.init(descriptor: STDIN_FILENO, ownsDescriptor: false, name: "standard input", limits: limits)
            return
        }
        let descriptor: Int32
        do {
            descriptor = try SystemCalls.openForReading(path)
        } catch {
            throw .cannotOpen(path: path, reason: error.text)
        }
        try self.init(descriptor: descriptor, ownsDescriptor: true, name: path, limits: limits)
    }

    private init(descriptor: Int32, ownsDescriptor: Bool, name: String, limits: DecodeLimits) throws(Y4MError) {
        stream = BufferedDescriptor(descriptor: descriptor, name: name)
        self.ownsDescriptor = ownsDescriptor
        let header: StreamHeader
        do {
            header = try StreamHeader.read(from: &stream, limits: limits)
        } catch {
            if ownsDescriptor { close(descriptor) }
            throw error
        }
        width = header.width
        height = header.height
        framesPerSecond = header.framesPerSecond
        chromaSampling = header.chromaSampling
        frameByteCount = header.frameByteCount
        frameBytes = [UInt8](repeating: 0, count: header.frameByteCount)
        neutralChromaRow = header.chromaSampling == .mono ? [UInt8](repeating: 128, count: (header.width + 1) / 2) : []
    }

    deinit {
        if ownsDescriptor { close(stream.descriptor) }
    }

    /// Reads and converts the next frame.
    /// - Returns: the frame as RGB8 (`[H, W, 3]`), or `nil` when the stream ends cleanly
    ///   after the previous frame (and on every later call).
    /// - Throws: ``Y4MError/truncatedFrame(frameIndex:expectedBytes:receivedBytes:)`` when the
    ///   stream ends inside a frame, ``Y4MError/malformedFrameHeader(frameIndex:)`` when a frame
    ///   does not start with `FRAME`, or a read error. After an error every later call
    ///   throws the same error.
    public func nextFrame() throws(Y4MError) -> RGBImage? {
        if let failure { throw failure }
        if reachedEnd { return nil }
        do {
            return try readFrame()
        } catch {
            failure = error
            throw error
        }
    }

    private func readFrame() throws(Y4MError) -> RGBImage? {
        guard let line = try stream.readLine(limit: Self.maxHeaderLineLength) else {
            reachedEnd = true
            return nil
        }
        let frameTag = Array("FRAME".utf8)
        let startsWithTag = line.bytes.starts(with: frameTag)
        guard line.terminated else {
            if startsWithTag || frameTag.starts(with: line.bytes) {
                throw .truncatedFrame(frameIndex: framesRead, expectedBytes: frameByteCount, receivedBytes: 0)
            }
            throw .malformedFrameHeader(frameIndex: framesRead)
        }
        guard startsWithTag, line.bytes.count == frameTag.count || line.bytes[frameTag.count] == 0x20 else {
            throw .malformedFrameHeader(frameIndex: framesRead)
        }
        let received = try stream.readExactly(into: &frameBytes, count: frameByteCount)
        guard received == frameByteCount else {
            throw .truncatedFrame(frameIndex: framesRead, expectedBytes: frameByteCount, receivedBytes: received)
        }
        framesRead += 1
        return RGBImage(validatedWidth: width, height: height, pixels: convertFrame())
    }

    /// The planes in `frameBytes` as RGB8 `[H, W, 3]`. The header parser checked that the sizes
    /// fit libyuv's; the planes are Y `[H, W]`, then Cb and Cr (`[⌈H/2⌉, ⌈W/2⌉]` each for
    /// 4:2:0, `[H, W]` for 4:4:4, absent for mono: converted as 4:2:0 whose chroma rows are all
    /// `neutralChromaRow`, a row stride of 0).
    private func convertFrame() -> [UInt8] {
        let lumaCount = width * height
        return frameBytes.withUnsafeBufferPointer { planes in
            // frameBytes holds at least the W × H > 0 luma samples.
            let y = planes.baseAddress!
            switch chromaSampling {
            case .yuv420:
                let chromaWidth = (width + 1) / 2
                let chromaCount = chromaWidth * ((height + 1) / 2)
                return PlanarYUV.rgb(
                    y: y, yStride: width, u: y + lumaCount, uStride: chromaWidth, v: y + lumaCount + chromaCount,
                    vStride: chromaWidth, chroma: .subsampled420, width: width, height: height,
                    colorSpace: .bt601Limited, chromaUpsampling: .linear)
            case .yuv444:
                return PlanarYUV.rgb(
                    y: y, yStride: width, u: y + lumaCount, uStride: width, v: y + 2 * lumaCount, vStride: width,
                    chroma: .full, width: width, height: height, colorSpace: .bt601Limited, chromaUpsampling: .linear)
            case .mono:
                return neutralChromaRow.withUnsafeBufferPointer { neutral in
                    PlanarYUV.rgb(
                        y: y, yStride: width, u: neutral.baseAddress!, uStride: 0, v: neutral.baseAddress!, vStride: 0,
                        chroma: .subsampled420, width: width, height: height, colorSpace: .bt601Limited,
                        chromaUpsampling: .linear)
                }
            }
        }
    }
}

// MARK: - Stream header

/// The parsed `YUV4MPEG2 ...` line.
private struct StreamHeader {
    var width: Int
    var height: Int
    var framesPerSecond: Double
    var chromaSampling: Y4MReader.ChromaSampling
    var frameByteCount: Int

    static func read(from stream: inout BufferedDescriptor, limits: DecodeLimits) throws(Y4MError) -> StreamHeader {
        let signature = Array("YUV4MPEG2".utf8)
        guard let line = try stream.readLine(limit: Y4MReader.maxHeaderLineLength) else {
            throw .notY4M
        }
        guard line.bytes.starts(with: signature),
              line.bytes.count == signature.count || line.bytes[signature.count] == 0x20 else {
            throw .notY4M
        }
        guard line.terminated else {
            throw .malformedHeader("the stream ends inside the header line")
        }

        var width: Int?
        var height: Int?
        var framesPerSecond = Y4MReader.defaultFramesPerSecond
        var sampling = Y4MReader.ChromaSampling.yuv420
        for token in line.bytes[signature.count...].split(separator: 0x20) {
            let value = token.dropFirst()
            switch token.first {
            case UInt8(ascii: "W"):
                width = try positiveInteger(value, parameter: "W")
            case UInt8(ascii: "H"):
                height = try positiveInteger(value, parameter: "H")
            case UInt8(ascii: "F"):
                framesPerSecond = try frameRate(value)
            case UInt8(ascii: "C"):
                sampling = try chromaSampling(value)
            default:
                continue  // I (interlacing), A (aspect), X (extensions) and unknown tags.
            }
        }
        guard let width else { throw .malformedHeader("missing width parameter W") }
        guard let height else { throw .malformedHeader("missing height parameter H") }
        do {
            try limits.check(width: width, height: height)
        } catch {
            throw .tooLarge(width: width, height: height, maxPixelCount: limits.maxPixelCount)
        }
        guard let frameByteCount = planeByteCount(width: width, height: height, sampling: sampling),
              RGBImage.byteCount(width: width, height: height, channels: 3) != nil,
              width <= YUVFrameError.maximumWidth, height <= YUVFrameError.maximumHeight else {
            throw .tooLarge(width: width, height: height, maxPixelCount: limits.maxPixelCount)
        }
        return StreamHeader(
            width: width, height: height, framesPerSecond: framesPerSecond,
            chromaSampling: sampling, frameByteCount: frameByteCount)
    }

    /// Y plane plus both chroma planes, or `nil` on overflow.
    private static func planeByteCount(width: Int, height: Int, sampling: Y4MReader.ChromaSampling) -> Int? {
        let (luma, lumaOverflow) = width.multipliedReportingOverflow(by: height)
        guard !lumaOverflow else { return nil }
        let chromaPlane: Int
        switch sampling {
        case .mono:
            return luma
        case .yuv444:
            chromaPlane = luma
        case .yuv420:
            // width, height > 0, so (n + 1) / 2 cannot overflow when written as n / 2 + n % 2.
            let (plane, overflow) = (width / 2 + width % 2).multipliedReportingOverflow(by: height / 2 + height % 2)
            guard !overflow else { return nil }
            chromaPlane = plane
        }
        let (chroma, chromaOverflow) = chromaPlane.multipliedReportingOverflow(by: 2)
        let (total, totalOverflow) = luma.addingReportingOverflow(chroma)
        return chromaOverflow || totalOverflow ? nil : total
    }

    /// 1 to 10 decimal digits, value > 0.
    private static func positiveInteger(_ text: ArraySlice<UInt8>, parameter: String) throws(Y4MError) -> Int {
        guard let value = decimal(text), value > 0 else {
            throw .malformedHeader("\(parameter)\(shown(text)) is not a positive integer")
        }
        return value
    }

    /// `num:den` with both positive, or `0:0` for unknown.
    private static func frameRate(_ text: ArraySlice<UInt8>) throws(Y4MError) -> Double {
        let parts = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = decimal(parts[0]), let denominator = decimal(parts[1]) else {
            throw .malformedHeader("frame rate F\(shown(text)) is not of the form num:den")
        }
        if numerator == 0 && denominator == 0 { return Y4MReader.defaultFramesPerSecond }
        guard numerator > 0, denominator > 0 else {
            throw .malformedHeader("frame rate F\(shown(text)) must have a positive numerator and denominator")
        }
        return Double(numerator) / Double(denominator)
    }

    private static func chromaSampling(_ name: ArraySlice<UInt8>) throws(Y4MError) -> Y4MReader.ChromaSampling {
        switch String(decoding: name, as: UTF8.self) {
        case "420jpeg", "420paldv", "420mpeg2", "420": return .yuv420
        case "444": return .yuv444
        case "mono": return .mono
        default: throw .unsupportedColourSpace(shown(name))
        }
    }

    /// The longest piece of a header parameter quoted in an error message, in bytes.
    static let maxShownParameterLength = 32

    /// A header parameter as an error message quotes it: printable ASCII as is, every other
    /// byte as `\xNN`; of a longer parameter, its first ``maxShownParameterLength`` bytes and
    /// its length. A header line of up to 4 KiB of binary data thus gives a short, readable
    /// message with no control characters.
    static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        var text = ""
        for byte in bytes.prefix(maxShownParameterLength) {
            if (0x20...0x7E).contains(byte) {
                text.append(Character(Unicode.Scalar(byte)))
            } else {
                let digits = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (digits.count == 1 ? "0" : "") + digits
            }
        }
        if bytes.count > maxShownParameterLength {
            text += "... (\(bytes.count) bytes)"
        }
        return text
    }

    /// Parses 1 to 10 ASCII digits (at most 9,999,999,999, so it cannot overflow `Int`).
    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard (1...10).contains(digits.count) else { return nil }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }
}

// MARK: - Buffered reading

/// A file descriptor read through a 64 KiB buffer.
private struct BufferedDescriptor {
    let descriptor: Int32
    /// The path, or "standard input", for error messages.
    let name: String
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private var exhausted = false

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    /// Reads up to and excluding the next line feed. Returns `nil` at end of stream before any
    /// byte, and `terminated: false` when the stream ends inside the line.
    /// - Throws: ``Y4MError/headerTooLong(limit:)`` once the line passes `limit` bytes.
    mutating func readLine(limit: Int) throws(Y4MError) -> (bytes: [UInt8], terminated: Bool)? {
        var line: [UInt8] = []
        while try refill() {
            let available = buffer[start..<end]
            let newline = available.firstIndex(of: 0x0A)
            line.append(contentsOf: buffer[start..<(newline ?? end)])
            guard line.count <= limit else { throw .headerTooLong(limit: limit) }
            if let newline {
                start = newline + 1
                return (line, true)
            }
            start = end
        }
        return line.isEmpty ? nil : (line, false)
    }

    /// Fills `destination[0..<count]`, first from the buffer, then straight from the descriptor.
    /// - Returns: the number of bytes stored, less than `count` only at end of stream.
    mutating func readExactly(into destination: inout [UInt8], count: Int) throws(Y4MError) -> Int {
        precondition(count <= destination.count, "destination too small")
        let buffered = min(end - start, count)
        destination.replaceSubrange(0..<buffered, with: buffer[start..<(start + buffered)])
        start += buffered
        var filled = buffered
        while filled < count && !exhausted {
            let received = try Self.read(descriptor, name: name, into: &destination, at: filled, count: count - filled)
            if received == 0 { exhausted = true }
            filled += received
        }
        return filled
    }

    /// Makes sure the buffer holds at least one byte; `false` at end of stream.
    private mutating func refill() throws(Y4MError) -> Bool {
        if start < end { return true }
        if exhausted { return false }
        start = 0
        end = try Self.read(descriptor, name: name, into: &buffer, at: 0, count: buffer.count)
        if end == 0 { exhausted = true }
        return end > 0
    }

    /// One `read(2)` into `destination[offset..<offset + count]`, retried on `EINTR`.
    private static func read(
        _ descriptor: Int32, name: String, into destination: inout [UInt8], at offset: Int, count: Int
    ) throws(Y4MError) -> Int {
        precondition(offset >= 0 && count > 0 && offset + count <= destination.count, "read out of bounds")
        let result = destination.withUnsafeMutableBytes { bytes in
            // The precondition keeps offset + count inside the buffer.
            Result { () throws(SystemError) in
                try SystemCalls.readSome(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            }
        }
        do {
            return try result.get()
        } catch {
            throw .readFailed(path: name, reason: error.text)
        }
    }
}
// MARK: - Errors

/// Everything that can go wrong while reading a YUV4MPEG2 (`.y4m`) stream.
public enum Y4MError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened (`reason` is the system's message).
    case cannotOpen(path: String, reason: String)
    /// A `read` call failed (`reason` is the system's message).
    case readFailed(path: String, reason: String)
    /// The stream does not start with `YUV4MPEG2 `.
    case notY4M
    /// A stream or frame header line is longer than `limit` bytes without a line feed.
    case headerTooLong(limit: Int)
    /// The stream header is malformed: a missing or bad `W`, `H` or `F` parameter.
    case malformedHeader(String)
    /// The `C` parameter names a colour space this reader does not convert (e.g. `420p10`).
    /// The name is quoted as the messages quote header text: printable ASCII as is, other
    /// bytes as `\xNN`, at most 32 bytes of it.
    case unsupportedColourSpace(String)
    /// The header declares more pixels than `DecodeLimits.maxPixelCount`, or (with that limit
    /// raised) frames whose sizes overflow or exceed what libyuv converts
    /// (``YUVFrameError/maximumWidth`` × ``YUVFrameError/maximumHeight``).
    case tooLarge(width: Int, height: Int, maxPixelCount: Int)
    /// Frame `frameIndex` (0-based) does not start with a valid `FRAME` line.
    case malformedFrameHeader(frameIndex: Int)
    /// The stream ended inside frame `frameIndex` (0-based), after `receivedBytes` of the
    /// `expectedBytes` bytes of its planes (0 when it ended inside the `FRAME` line).
    case truncatedFrame(frameIndex: Int, expectedBytes: Int, receivedBytes: Int)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            return "cannot open Y4M stream '\(path)': \(reason)"
        case let .readFailed(path, reason):
            return "cannot read Y4M stream '\(path)': \(reason)"
        case .notY4M:
            return "not a YUV4MPEG2 stream (missing 'YUV4MPEG2 ' signature)"
        case let .headerTooLong(limit):
            return "Y4M header line longer than \(limit) bytes"
        case let .malformedHeader(message):
            return "malformed Y4M stream header: \(message)"
        case let .unsupportedColourSpace(name):
            return "unsupported Y4M colour space 'C\(name)'; supported: 420jpeg, 420paldv, "
                + "420mpeg2, 420, 444, mono (8-bit)"
        case let .tooLarge(width, height, maxPixelCount):
            return "Y4M frames are \(width)x\(height), more than the limit of \(maxPixelCount) pixels"
        case let .malformedFrameHeader(frameIndex):
            return "Y4M frame \(frameIndex) does not start with a 'FRAME' line"
        case let .truncatedFrame(frameIndex, expectedBytes, receivedBytes):
            return "Y4M stream ends inside frame \(frameIndex): got \(receivedBytes) of \(expectedBytes) bytes"
        }
    }
}

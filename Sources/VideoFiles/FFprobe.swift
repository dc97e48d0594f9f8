extension VideoProbe {
    /// The entries `init(path:)` asks `ffprobe` for, which `init(ffprobeReport:path:)` reads.
    static let probeEntries =
        "stream=nb_frames,avg_frame_rate,width,height,duration,start_time:stream_tags=DURATION:format=duration,nb_streams"

    /// Probes `path` with `ffprobe`.
    /// - Throws: `VideoFileError.programNotFound` without `ffprobe`, `.unreadable` when it
    ///   cannot read the file, the file has no video stream, or the stream has no size (what
    ///   `ffprobe` says of bytes it takes for a raw stream, such as H.263, without a picture).
    public init(path: String) throws(VideoFileError) {
        let report = try Self.run(
            ["ffprobe", "-v", "error", "-select_streams", "V:0", "-show_entries", Self.probeEntries, "-of", "json", "--", path],
            path: path)
        try self.init(ffprobeReport: report, path: path)
    }

    /// Runs `ffprobe` and returns its standard output (at most 1 MiB); its standard error
    /// becomes the message of `.unreadable` when it fails.
    private static func run(_ arguments: [String], path: String) throws(VideoFileError) -> [UInt8] {
        let process = try ChildProcess(arguments)
        let limit = 1 << 20
        var output = [UInt8](repeating: 0, count: limit)
        var errorText = [UInt8](repeating: 0, count: 4096)
        let outputCount = try ChildProcess.readFully(process.standardOutput, into: &output)
        let errorCount = try ChildProcess.readFully(process.standardError, into: &errorText)
        if outputCount == limit { process.closeOutput(); process.terminate() }
        let status = process.wait()
        guard status == 0 else {
            let message = String(decoding: errorText[..<errorCount], as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? "status \(status)"
            throw .unreadable(path: path, message: message)
        }
        return Array(output[..<outputCount])
    }
}

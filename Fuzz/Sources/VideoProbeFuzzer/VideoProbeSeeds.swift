/// ffprobe's reports as it writes them for an MP4 (a frame count), a Matroska file (a
/// `DURATION` tag), a file with a second stream and one with `N/A` values; ffmpeg's log lines
/// (`showinfo` frame lines, a tagged error, an untagged line); and shortfall numbers.
enum VideoProbeSeeds {
    static func all() -> [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        func add(_ kind: VideoProbeDriver.Kind, _ name: String, _ payload: [UInt8]) {
            seeds.append(("\(kind)-\(name)", [kind.rawValue] + payload))
        }
        let mp4 = """
            {"programs": [], "streams": [{"width": 64, "height": 48, "avg_frame_rate": "25/1", \
            "start_time": "0.000000", "duration": "0.400000", "nb_frames": "10", "tags": {}}], \
            "format": {"nb_streams": 1, "duration": "0.400000"}}
            """
        let matroska = """
            {
                "programs": [

                ],
                "streams": [
                    {
                        "width": 64,
                        "height": 48,
                        "avg_frame_rate": "30000/1001",
                        "start_time": "0.033000",
                        "tags": {
                            "DURATION": "00:00:01.200000000"
                        }
                    }
                ],
                "format": {
                    "nb_streams": 1,
                    "duration": "1.200000"
                }
            }
            """
        let twoStreams = """
            {"streams": [{"width": 1920, "height": 1080, "avg_frame_rate": "0/0", "start_time": "N/A", \
            "duration": "N/A", "nb_frames": "N/A"}], "format": {"nb_streams": 2, "duration": "12.5"}}
            """
        let noSize = #"{"streams": [{"avg_frame_rate": "25/1"}], "format": {"nb_streams": 1}}"#
        for (name, report) in [("mp4", mp4), ("matroska", matroska), ("two-streams", twoStreams), ("no-size", noSize)] {
            add(.probeReport, name, Array(report.utf8))
        }
        let lines = [
            "[Parsed_showinfo_0 @ 0x55fb0638c980] [info] n:   0 pts:      0 pts_time:0       pos:       48 "
                + "fmt:yuv420p sar:1/1 s:64x48 i:P iskey:1 type:I checksum:0B6ACB75",
            "[Parsed_showinfo_0 @ 0x55fb0638c980] [info] n:  12 pts:  15360 pts_time:1.2     pos:     9001 "
                + "fmt:rgb24 sar:0/1 s:1920x1080 i:P iskey:0 type:P",
            "[Parsed_showinfo_0 @ 0x55fb0638c980] [info] n:   3 pts:NOPTS pts_time:NOPTS s:640x360",
            "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5581c2d0] [error] moov atom not found",
            "[h264 @ 0x55d0] [error] Invalid NAL unit size (1234 > 567).",
            "[info] Stream mapping:",
            "  Stream #0:0 -> #0:0 (h264 (native) -> rawvideo (native))",
        ]
        for (index, line) in lines.enumerated() {
            add(.logLine, "line-\(index)", Array(line.utf8))
        }
        /// flags, frame count, rate, duration, frames decoded, first and last timestamp (ms).
        func numbers(_ flags: UInt8, _ count: Int64, _ rate: Double, _ duration: Double, _ frames: UInt32,
                     _ first: Int64, _ span: Int64) -> [UInt8] {
            func bytes(_ value: UInt64, _ count: Int) -> [UInt8] {
                (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            }
            return [flags] + bytes(UInt64(bitPattern: count), 8) + bytes(rate.bitPattern, 8)
                + bytes(duration.bitPattern, 8) + bytes(UInt64(bitPattern: first), 8) + bytes(UInt64(span << 1), 8)
                + bytes(UInt64(frames - 1), 4)
        }
        add(.shortfallNumbers, "frame-count", numbers(1, 90, 25, 3.6, 44, 0, 1720))
        add(.shortfallNumbers, "duration", numbers(6, 0, 25, 1.2, 14, 0, 520))
        add(.shortfallNumbers, "whole", numbers(7, 90, 25, 3.6, 90, 40, 3560))
        return seeds
    }
}

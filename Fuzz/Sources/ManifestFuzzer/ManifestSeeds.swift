/// Manifests as datasets write them: comments, blank lines, relative and absolute paths,
/// folders, CRLF line ends with a byte-order mark, names with spaces, dots and non-ASCII
/// letters, names long enough to be hashed, and manifests `extract` refuses (two entries of one
/// name, a control character, no entries).
enum ManifestSeeds {
    static func all() -> [(String, [UInt8])] {
        let long = String(repeating: "très-long-nom ", count: 14)
        let texts: [(String, String)] = [
            ("plain", "# four videos\nvideos/first.mp4\nvideos/second.mkv\n\nvideos/third.webm\nvideos/frames\n"),
            ("absolute", "/srv/data/a.mp4\n/srv/data/b/\n  indented.mov\t\n"),
            ("crlf-bom", "\u{FEFF}# saved on Windows\r\nclips\\one.mp4\r\n\r\nclip two.avi\r\n"),
            ("names", "a.b.c.mp4\n.hidden.mp4\nnoextension\ncafé/naïve.mkv\n日本語.webm\n"),
            ("long-names", "a/\(long).mp4\nb/\(long)x.mp4\n\(String(repeating: "é", count: 200))\n"),
            ("same-name", "a/clip.mp4\nb/clip.mkv\n"),
            ("control", "ok.mp4\nbad\u{7}.mp4\n"),
            ("empty", "# nothing\n\n"),
            ("no-name", "videos/..\n"),
        ]
        return texts.map { ($0.0, Array($0.1.utf8)) } + [("not-utf8", Array("clip.mp4\n".utf8) + [0xFF, 0xFE, 0x0A])]
    }
}

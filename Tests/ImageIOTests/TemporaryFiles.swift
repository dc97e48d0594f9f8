import Foundation

/// A fresh path in the system's temporary folder (`$TMPDIR` or /tmp) for a test file.
func temporaryFilePath(extension fileExtension: String) -> String {
    NSTemporaryDirectory() + "landmarker-imageio-\(UInt32.random(in: 0...UInt32.max)).\(fileExtension)"
}

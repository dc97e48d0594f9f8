import Foundation
import ImageIO
#if canImport(Glibc)
import Glibc
#endif

/// Reads a Y4M stream to its end. `Y4MReader` reads a path (or standard
/// input), so the stream goes through a scratch file of this process, opened
/// once and unlinked at once (nothing is left behind, even after a crash) and
/// reached as `/proc/self/fd/N`. The file lies in `/dev/shm` where there is
/// one (a memory file system): in the temporary folder of a disk file system,
/// the write of every execution went through the file system's journal and
/// the disk, and most of an execution's time was the kernel's.
public enum Y4MDriver {
    private static let scratchDescriptor: Int32 = {
        var folder = NSTemporaryDirectory()
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isFolder), isFolder.boolValue,
           access("/dev/shm", W_OK) == 0 {
            folder = "/dev/shm/"
        }
        if !folder.hasSuffix("/") { folder += "/" }
        let path = folder + "y4m-driver-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).y4m"
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            fatalError("Y4MDriver: cannot create \(path): \(String(cString: strerror(errno)))")
        }
        unlink(path)
        return descriptor
    }()

    /// Reads the stream `bytes` hold with `limits` and checks what the reader gives.
    public static func readStream(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) -> Outcome {
        let path = "/proc/self/fd/\(scratchDescriptor)"
        replaceScratchContents(with: bytes)
        let reader: Y4MReader
        do {
            reader = try Y4MReader(path: path, limits: limits)
        } catch {
            return FuzzCheck.refused(error)
        }
        FuzzCheck.require(reader.width * reader.height <= limits.maxPixelCount,
                          "Y4M frames of \(reader.width)x\(reader.height) passed the pixel cap")
        do {
            while let frame = try reader.nextFrame() {
                FuzzCheck.requireConsistent(frame, "Y4M frame \(reader.framesRead - 1)")
                FuzzCheck.require(frame.width == reader.width && frame.height == reader.height,
                                  "Y4M frame of \(frame.width)x\(frame.height) in a \(reader.width)x\(reader.height) stream")
            }
            FuzzCheck.require(try reader.nextFrame() == nil, "Y4M frame after the end of the stream")
        } catch {
            do {
                _ = try reader.nextFrame()
                FuzzCheck.require(false, "Y4M reader went on after \(error)")
            } catch let again {
                FuzzCheck.require(again == error, "Y4M reader failed with \(again) after \(error)")
            }
            return FuzzCheck.refused(error)
        }
        return .parsed("\(reader.framesRead) frames of \(reader.width)x\(reader.height)")
    }

    private static func replaceScratchContents(with bytes: UnsafeRawBufferPointer) {
        guard ftruncate(scratchDescriptor, 0) == 0 else {
            fatalError("Y4MDriver: cannot truncate the scratch file: \(String(cString: strerror(errno)))")
        }
        var written = 0
        while written < bytes.count {
            let result = pwrite(scratchDescriptor, bytes.baseAddress! + written, bytes.count - written, off_t(written))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                fatalError("Y4MDriver: cannot write the scratch file: \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }
}

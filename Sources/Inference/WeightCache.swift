#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlatBufferReader
import Kernels
import SystemInterface
import Tensor

/// A folder of packed weights saved by earlier loads, so that loading a model
/// again maps its packed convolution and depthwise filters (and the weight
/// lists and filters of its channel-major sparse kernels) from a file
/// instead of packing them: most of a load's time is packing and the kernel
/// making fresh pages for the packed weights, while a file's pages come
/// straight from the page cache (and are shared by every process that maps
/// them). The outputs are the same bits either way.
///
/// One file per model and configuration: named by a fingerprint of the
/// model's source (`ModelFingerprint`), the kernel family, whether
/// operators are fused and sparse kernels used, and which graph outputs are
/// skipped (`Interpreter.Options.skippedOutputs`). The source of a model file,
/// or of a model in a mapped `.task` bundle, is the file's identity as it
/// was opened (device, inode, size, modification and status-change times,
/// and the model's place in the bundle; `ModelBytes.sourceIdentity`), so
/// that a cached load need not read the weights it maps: a file rewritten or
/// replaced has another identity (its status-change time moves whatever its
/// modification time says), and its weights are packed afresh. A model in
/// memory is named by a fingerprint of its bytes. The header also holds the
/// identity of the executable that wrote the file (that of `/proc/self/exe`,
/// taken as a model file's), so a rebuilt binary, whose packing may differ,
/// repacks and replaces the file rather than reading it. A file is written
/// whole under a temporary name and then renamed, never rewritten in place; a load that finds it missing,
/// truncated, of another version or executable, or not matching the model's
/// sizes packs as usual and writes it anew. A folder keeps at most
/// `maximumFileCount` files: a save removes the least recently written
/// beyond that, and temporary files a crashed writer left. Failing to read or write the
/// folder (read-only, full, absent `HOME`) only costs the saving: a load
/// never fails because of its cache.
///
/// What a file's header and table say is checked before anything is read
/// from its data (sizes, offsets, alignment, each buffer's size against what
/// the model needs; a sparse kernel's lists, whose size only they tell,
/// checked whole: counts, starts and every offset inside its block), so a
/// damaged file cannot make a load or a kernel read outside it; the packed
/// values themselves are trusted, as the model file's are. Like
/// any mapped file, a cache file must not be truncated in place while a
/// model that mapped it is loaded.
///
/// Thread safety: a `Sendable` value; loads on any number of threads may
/// share a folder (each file is replaced atomically).
public struct WeightCache: Sendable, Equatable {
    /// The folder the files are in (created when the first one is saved).
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// The environment variable that names the cache folder, or turns the cache off (`off`).
    public static let environmentVariable = "LANDMARKER_WEIGHT_CACHE"

    /// The cache the landmarkers and the command-line tool use unless told
    /// otherwise: the folder `$LANDMARKER_WEIGHT_CACHE` names (nil when it
    /// is `off`), else `$XDG_CACHE_HOME/landmarker/weights`, else
    /// `$HOME/.cache/landmarker/weights`; nil without any of them, or where
    /// this system gives no executable identity (not Linux). An empty
    /// variable counts as unset.
    public static var standard: WeightCache? {
        guard ExecutableIdentity.current != nil else { return nil }
        return standard { name in getenv(name).map { String(cString: $0) } }
    }

    /// `standard` for the environment variables `environment` gives.
    static func standard(environment: (String) -> String?) -> WeightCache? {
        func variable(_ name: String) -> String? { environment(name).flatMap { $0.isEmpty ? nil : $0 } }
        if let named = variable(environmentVariable) { return named == "off" ? nil : WeightCache(folder: named) }
        if let cacheHome = variable("XDG_CACHE_HOME") { return WeightCache(folder: cacheHome + "/landmarker/weights") }
        if let home = variable("HOME") { return WeightCache(folder: home + "/.cache/landmarker/weights") }
        return nil
    }

    /// What names one model's packed weights: the model, the kernel family
    /// and the load options that change what is packed.
    struct Entry {
        let fingerprint: ModelFingerprint
        let modelByteCount: Int
        let instructionSet: KernelInstructionSet
        let fusesOperators: Bool
        let usesSparseKernels: Bool
        /// The positions of the graph outputs not computed: a load that skips some prepares
        /// fewer operators, so its packings' scopes are numbered otherwise.
        let skippedOutputs: Set<Int>

        /// 0 when no output is skipped, else a 56-bit FNV-1a hash of the skipped positions
        /// (in order), never 0: it names the file and sits in its header beside the options.
        var skippedOutputsKey: UInt64 {
            guard !skippedOutputs.isEmpty else { return 0 }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for position in skippedOutputs.sorted() {
                hash = (hash ^ UInt64(truncatingIfNeeded: position)) &* 0x0000_0100_0000_01B3
            }
            return max(1, hash & (1 << 56 - 1))
        }

        var fileName: String {
            let skipped = skippedOutputsKey == 0 ? "" : "-skipping-" + String(skippedOutputsKey, radix: 16)
            return "\(fingerprint.hexadecimal)-\(instructionSet.rawValue)-\(fusesOperators ? "fused" : "unfused")"
                + "\(usesSparseKernels ? "-sparse" : "")\(skipped).weights"
        }
    }

    /// The file of `entry` in this folder.
    func path(of entry: Entry) -> String { folder + "/" + entry.fileName }

    /// A store holding the buffers of `entry`'s file (none when the file
    /// is missing, unreadable or was not written for `entry` by this
    /// executable), mapped read-only.
    func store(for entry: Entry) -> PackedWeightStore {
        guard let executable = ExecutableIdentity.current,
              let file = ReadOnlyFileMapping.cacheFile(atPath: path(of: entry)),
              let buffers = CacheFileFormat.buffers(in: file, for: entry, writtenBy: executable)
        else { return PackedWeightStore() }
        return PackedWeightStore(reusable: buffers)
    }

    /// Writes every buffer `store` handed out as `entry`'s file, replacing any
    /// there: whole under a temporary name, then renamed. Returns whether it
    /// was written; a failure leaves no file behind.
    @discardableResult
    func save(_ store: PackedWeightStore, for entry: Entry) -> Bool {
        guard let executable = ExecutableIdentity.current, Self.makeFolder(folder) else { return false }
        let final = path(of: entry)
        let temporary = "\(folder)/.\(entry.fileName).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        guard let descriptor = try? SystemCalls.createFile(temporary, exclusive: true) else { return false }
        let written = CacheFileFormat.writeFile(store.buffers, for: entry, writtenBy: executable, to: descriptor)
        let closed = close(descriptor) == 0
        guard written, closed, rename(temporary, final) == 0 else {
            unlink(temporary)
            return false
        }
        removeOldFiles(keeping: final)
        return true
    }

    /// The most cache files a folder keeps: a save beyond it removes the
    /// least recently written ones (a model replaced, or no longer used,
    /// leaves its file behind; one still in use is only packed again).
    public static let maximumFileCount = 32

    /// How old a temporary file must be (seconds) for a save to take it as
    /// left by a process that died while writing it, and remove it.
    static let abandonedTemporaryAge = 3600

    /// Removes the cache files beyond `maximumFileCount`, least recently
    /// written first, never `kept` (the file just saved), and temporary files
    /// older than `abandonedTemporaryAge`. Files of other names are left alone.
    func removeOldFiles(keeping kept: String) {
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        var cacheFiles: [(path: String, written: Int)] = []
        let now = Int(time(nil))
        while let record = readdir(directory) {
            let name = withUnsafeBytes(of: record.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let path = folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if os(Linux)
            let written = Int(info.st_mtim.tv_sec)
            #else
            let written = Int(info.st_mtimespec.tv_sec)
            #endif
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                if now - written > Self.abandonedTemporaryAge { unlink(path) }
            } else if name.hasSuffix(".weights"), path != kept {
                cacheFiles.append((path, written))
            }
        }
        let excess = cacheFiles.count + 1 - Self.maximumFileCount
        guard excess > 0 else { return }
        for file in cacheFiles.sorted(by: { $0.written < $1.written }).prefix(excess) { unlink(file.path) }
    }

    /// Creates `folder` and its parents as needed; whether it then exists.
    private static func makeFolder(_ folder: String) -> Bool {
        var info = stat()
        if stat(folder, &info) == 0 { return (info.st_mode & S_IFMT) == S_IFDIR }
        if let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            guard makeFolder(String(folder[..<slash])) else { return false }
        }
        return mkdir(folder, 0o755) == 0 || errno == EEXIST
    }
}

/// Which executable wrote a cache file: its file's identity as a model
/// file's is taken (`ModelBytes.identity(of:)`: device, inode, size,
/// modification and status-change times). Rebuilding or replacing the binary
/// changes it.
struct ExecutableIdentity: Equatable {
    let words: [UInt64]

    /// This process's executable, or nil where `/proc/self/exe` cannot be read.
    static let current: ExecutableIdentity? = {
        #if os(Linux)
        var info = stat()
        guard stat("/proc/self/exe", &info) == 0 else { return nil }
        return ExecutableIdentity(words: ModelBytes.identity(of: info))
        #else
        return nil
        #endif
    }()
}

extension ReadOnlyFileMapping {
    /// Maps the cache file at `path` read-only (a private mapping that could be written would
    /// be copied page by page), its pages made resident at once; nil when it cannot be opened,
    /// is not a regular file, is empty, is larger than twice `ModelBytes.maximumSize` or cannot
    /// be mapped. The buffers borrowed from it keep it as their owner: it is unmapped when the
    /// last of them goes.
    static func cacheFile(atPath path: String) -> ReadOnlyFileMapping? {
        guard let file = try? ReadOnlyFileMapping(path: path, maximumSize: ModelBytes.maximumSize * 2), file.count > 0
        else { return nil }
        mapInPages(of: file.bytes)
        return file
    }
}

/// The layout of a cache file, all integers 64-bit little-endian:
///
/// - header, `headerWords` words: `magic`, `version`, the model's
///   fingerprint (high, low) and byte count, the kernel family's number in
///   `KernelInstructionSet.allCases`, the options (1: operators fused, 2:
///   sparse kernels, bits 8 and up: `Entry.skippedOutputsKey`), the executable's identity (7 words), the buffer count;
/// - the table, 4 words a buffer in key order: scope, ordinal, float count,
///   byte offset of its data;
/// - the data: each buffer's `AlignedBuffer.capacityFor(count:)` floats at
///   its offset, a multiple of `AlignedBuffer.alignment`, in the file.
enum CacheFileFormat {
    static let magic: UInt64 = 0x5354_4847_574B_4D4C  // "LMKWGHTS" read as little-endian bytes
    static let version: UInt64 = 2
    static let headerWords = 15
    static let tableWordsPerBuffer = 4

    /// The header `entry`'s file has when `executable` wrote `bufferCount` buffers.
    static func header(for entry: WeightCache.Entry, writtenBy executable: ExecutableIdentity, bufferCount: Int)
        -> [UInt64]
    {
        let family = UInt64(KernelInstructionSet.allCases.firstIndex(of: entry.instructionSet)!)
        let options = UInt64((entry.fusesOperators ? 1 : 0) | (entry.usesSparseKernels ? 2 : 0))
            | entry.skippedOutputsKey << 8
        let header = [magic, version, entry.fingerprint.high, entry.fingerprint.low, UInt64(entry.modelByteCount),
                      family, options] + executable.words + [UInt64(bufferCount)]
        assert(header.count == headerWords, "the header layout and headerWords disagree")
        return header
    }

    /// The buffers of `file`, borrowed from its mapping, by key; nil unless
    /// its header is `entry`'s by `executable` and every table row has a key
    /// of its own and lies inside the file, aligned, at most
    /// `TensorShape.maxElements` floats.
    static func buffers(
        in file: ReadOnlyFileMapping, for entry: WeightCache.Entry, writtenBy executable: ExecutableIdentity
    ) -> [PackedWeightStore.Key: AlignedBuffer]? {
        let bytes = file.bytes
        let wordSize = MemoryLayout<UInt64>.size
        func word(_ index: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * wordSize, as: UInt64.self))
        }
        guard bytes.count >= headerWords * wordSize else { return nil }
        let count = word(headerWords - 1)
        guard count <= UInt64(bytes.count / (tableWordsPerBuffer * wordSize)),
              (0..<headerWords - 1).map(word) == header(for: entry, writtenBy: executable, bufferCount: 0).dropLast(),
              (headerWords + Int(count) * tableWordsPerBuffer) * wordSize <= bytes.count
        else { return nil }
        var buffers: [PackedWeightStore.Key: AlignedBuffer] = [:]
        for row in 0..<Int(count) {
            let first = headerWords + row * tableWordsPerBuffer
            let (scope, ordinal, floats, offset) = (word(first), word(first + 1), word(first + 2), word(first + 3))
            guard floats <= UInt64(TensorShape.maxElements), offset % UInt64(AlignedBuffer.alignment) == 0,
                  offset <= UInt64(bytes.count),
                  UInt64(AlignedBuffer.capacityFor(count: Int(floats)) * MemoryLayout<Float>.size)
                    <= UInt64(bytes.count) - offset
            else { return nil }
            let key = PackedWeightStore.Key(scope: Int(truncatingIfNeeded: scope), ordinal: Int(truncatingIfNeeded: ordinal))
            guard buffers[key] == nil else { return nil }
            let start = UnsafeMutableRawPointer(mutating: bytes.baseAddress! + Int(offset))
            buffers[key] = AlignedBuffer(
                borrowing: start.assumingMemoryBound(to: Float.self), count: Int(floats), owner: file)
        }
        return buffers
    }

    /// Writes `buffers` as `entry`'s file to `descriptor`; whether every byte was written.
    static func writeFile(
        _ buffers: [(key: PackedWeightStore.Key, buffer: AlignedBuffer)], for entry: WeightCache.Entry,
        writtenBy executable: ExecutableIdentity, to descriptor: Int32
    ) -> Bool {
        let wordSize = MemoryLayout<UInt64>.size, alignment = AlignedBuffer.alignment
        var offset = (headerWords + buffers.count * tableWordsPerBuffer) * wordSize
        var words = header(for: entry, writtenBy: executable, bufferCount: buffers.count)
        var placed: [(offset: Int, buffer: AlignedBuffer)] = []
        for (key, buffer) in buffers {
            offset = (offset + alignment - 1) / alignment * alignment
            words += [UInt64(bitPattern: Int64(key.scope)), UInt64(bitPattern: Int64(key.ordinal)),
                      UInt64(buffer.count), UInt64(offset)]
            placed.append((offset, buffer))
            offset += buffer.capacity * MemoryLayout<Float>.size
        }
        var position = 0
        func append(_ raw: UnsafeRawBufferPointer) -> Bool {
            position += raw.count
            return (try? SystemCalls.writeAll(raw, to: descriptor)) != nil
        }
        let zeros = [UInt8](repeating: 0, count: alignment)
        guard words.map(\.littleEndian).withUnsafeBytes(append) else { return false }
        for (start, buffer) in placed {
            guard zeros.withUnsafeBytes({ append(UnsafeRawBufferPointer(rebasing: $0[..<(start - position)])) }),
                  append(UnsafeRawBufferPointer(start: buffer.baseAddress, count: buffer.capacity * MemoryLayout<Float>.size))
            else { return false }
        }
        return true
    }
}

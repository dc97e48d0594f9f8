#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// SHA-256 digests of files, through the system's libcrypto (OpenSSL's EVP API), read in 1 MiB
/// pieces so that memory stays flat whatever the file's size. libcrypto is loaded when the first
/// digest starts (`LibCrypto.shared`), not linked: only `extract` hashes, and the library's pages
/// would otherwise be resident in every command (about 1.4 MiB of the pose and hand runs).
struct FileDigest {
    private let crypto: LibCrypto
    private let context: OpaquePointer

    /// A running SHA-256.
    /// - Throws: `CommandFailure` naming the library when libcrypto cannot be loaded or lacks a
    ///   function, or when the digest cannot start.
    init() throws {
        let crypto = try LibCrypto.shared()
        guard let context = crypto.newContext() else { throw CommandFailure("\(LibCrypto.name): out of memory") }
        guard let sha256 = crypto.sha256(), crypto.initialize(context, sha256, nil) == 1 else {
            crypto.freeContext(context)
            throw CommandFailure("\(LibCrypto.name): SHA-256 unavailable")
        }
        self.crypto = crypto
        self.context = context
    }

    /// Adds `bytes` to the digest.
    func update(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0 { _ = crypto.update(context, bytes.baseAddress, bytes.count) }
    }

    /// Adds the whole file at `path`; returns its size in bytes.
    @discardableResult
    func update(contentsOf path: String) throws -> Int {
        let file = try PosixFile(readingAtPath: path)
        var size = 0
        while true {
            let piece = try file.readPiece(upTo: 1 << 20)
            if piece.isEmpty { break }
            piece.withUnsafeBytes { update($0) }
            size += piece.count
        }
        return size
    }

    /// The digest as 64 lower-case hex digits; the context is freed, so call this once.
    func finish() -> String {
        var digest = [UInt8](repeating: 0, count: LibCrypto.maxDigestSize)
        var length: UInt32 = 0
        _ = crypto.finish(context, &digest, &length)
        crypto.freeContext(context)
        return digest.prefix(Int(length)).map { formatted("%02x", UInt32($0)) }.joined()
    }

    /// The SHA-256 of `text`'s UTF-8 bytes, as 64 lower-case hex digits.
    static func sha256(ofText text: String) throws -> String {
        let digest = try FileDigest()
        var text = text
        text.withUTF8 { digest.update(UnsafeRawBufferPointer($0)) }
        return digest.finish()
    }

    /// The SHA-256 of a file and its size in bytes.
    static func sha256(ofFile path: String) throws -> (hex: String, bytes: Int) {
        let digest = try FileDigest()
        let bytes: Int
        do {
            bytes = try digest.update(contentsOf: path)
        } catch {
            _ = digest.finish()
            throw error
        }
        return (digest.finish(), bytes)
    }
}

/// The EVP digest functions of OpenSSL 3's libcrypto (which keeps them undeprecated), looked up
/// with `dlopen` and `dlsym` when the first digest starts. The library stays loaded for the rest
/// of the process.
struct LibCrypto: Sendable {
    /// The library's file name, as the dynamic loader finds it (Debian's `libssl3`).
    static let name = "libcrypto.so.3"
    /// `EVP_MAX_MD_SIZE`: bytes of the longest digest.
    static let maxDigestSize = 64

    /// `EVP_MD_CTX *EVP_MD_CTX_new(void)`.
    let newContext: @convention(c) () -> OpaquePointer?
    /// `void EVP_MD_CTX_free(EVP_MD_CTX *)`.
    let freeContext: @convention(c) (OpaquePointer?) -> Void
    /// `const EVP_MD *EVP_sha256(void)`.
    let sha256: @convention(c) () -> OpaquePointer?
    /// `int EVP_DigestInit_ex(EVP_MD_CTX *, const EVP_MD *, ENGINE *)`: 1 on success.
    let initialize: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    /// `int EVP_DigestUpdate(EVP_MD_CTX *, const void *, size_t)`.
    let update: @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32
    /// `int EVP_DigestFinal_ex(EVP_MD_CTX *, unsigned char *, unsigned int *)`.
    let finish: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32

    /// The functions, loaded once; the error of the first load is thrown again on later calls.
    static func shared() throws -> LibCrypto { try loaded.get() }

    private static let loaded = Result { () throws(CommandFailure) -> LibCrypto in try LibCrypto() }

    private init() throws(CommandFailure) {
        guard let library = dlopen(Self.name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw CommandFailure(
                "\(Self.name) (OpenSSL's libcrypto, Debian's libssl3) is needed to hash files and could not be loaded: \(reason)")
        }
        /// The function `symbol` of the library as type `T`.
        func function<T>(_ symbol: String, as type: T.Type) throws(CommandFailure) -> T {
            guard let address = dlsym(library, symbol) else {
                throw CommandFailure("\(Self.name) has no \(symbol)")
            }
            return unsafeBitCast(address, to: type)
        }
        newContext = try function("EVP_MD_CTX_new", as: (@convention(c) () -> OpaquePointer?).self)
        freeContext = try function("EVP_MD_CTX_free", as: (@convention(c) (OpaquePointer?) -> Void).self)
        sha256 = try function("EVP_sha256", as: (@convention(c) () -> OpaquePointer?).self)
        initialize = try function(
            "EVP_DigestInit_ex", as: (@convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32).self)
        update = try function(
            "EVP_DigestUpdate", as: (@convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32).self)
        finish = try function(
            "EVP_DigestFinal_ex",
            as: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32)
                .self)
    }
}

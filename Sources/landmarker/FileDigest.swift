import CCrypto

/// SHA-256 digests of files, through the system's libcrypto (OpenSSL's EVP API), read in 1 MiB
/// pieces so that memory stays flat whatever the file's size.
struct FileDigest {
    private let context: OpaquePointer

    /// A running SHA-256.
    init() throws {
        guard let context = EVP_MD_CTX_new() else { throw CommandFailure("libcrypto: out of memory") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw CommandFailure("libcrypto: SHA-256 unavailable")
        }
        self.context = context
    }

    /// Adds `bytes` to the digest.
    func update(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0 { EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) }
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
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        EVP_MD_CTX_free(context)
        return digest.prefix(Int(length)).map { formatted("%02x", UInt32($0)) }.joined()
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

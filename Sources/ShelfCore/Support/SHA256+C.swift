import CCrypto
import CTransferLoader
import Foundation

/// Why libcrypto could not compute a digest, in its own words.
struct CryptoFailure: Error, CustomStringConvertible {
    /// The call that failed: `EVP_DigestUpdate`…
    var call: String
    /// OpenSSL's message for the error it queued.
    var message: String

    /// A failure of `call`, with the message OpenSSL queued on this thread (and an empty queue after it).
    /// The corresponding C functions are `ERR_get_error` and `ERR_error_string_n`.
    init(call: String) {
        self.call = call
        let code = ERR_get_error()
        ERR_clear_error()
        if code == 0 {
            message = "no reason given"
        } else {
            let text = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
            defer { text.deallocate() }
            ERR_error_string_n(code, text, 256)
            message = String(cString: text)
        }
    }

    /// A failure with this message; OpenSSL's queue is not read.
    init(call: String, message: String) {
        self.call = call
        self.message = message
    }

    var description: String { "\(call) failed: \(message)" }
}

/// Every libcrypto result goes through here: EVP functions return 1 on success; anything else becomes a
/// `CryptoFailure` naming the call, with OpenSSL's message. (swift-system's `valueOrErrno`.)
private func check(_ result: Int32, _ call: @autoclosure () -> String) throws(CryptoFailure) {
    guard result != 1 else { return }
    throw CryptoFailure(call: call())
}

/// SHA-256 (FIPS 180-4), streamed, on OpenSSL's EVP interface: checks a downloaded part against the digest its
/// manifest gives. A value: a copy goes on independently of the original.
struct SHA256 {
    private var context: DigestContext

    init() throws(CryptoFailure) {
        context = try DigestContext()
    }

    /// Adds bytes to the message. The corresponding C function is `EVP_DigestUpdate`.
    mutating func update(_ data: Data) throws(CryptoFailure) {
        if !isKnownUniquelyReferenced(&context) { context = try DigestContext(copying: context) }
        try context.update(data)
    }

    /// The digest of the bytes so far, in lower-case hex; more may still be added. The corresponding C function
    /// is `EVP_DigestFinal_ex`.
    func finish() throws(CryptoFailure) -> String {
        try DigestContext(copying: context).finish()
    }

    /// The hex digest of a file, read in 1 MB chunks.
    static func hex(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = try SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { try hasher.update(chunk) }
        return try hasher.finish()
    }
}

/// An EVP digest context, freed with its owner.
private final class DigestContext {
    private let context: OpaquePointer

    /// A SHA-256 context. The corresponding C functions are `EVP_MD_CTX_new` and `EVP_DigestInit_ex`.
    init() throws(CryptoFailure) {
        // libcrypto is opened on the first digest (it is not linked: see CTransferLoader).
        if let reason = CTransfer_load_crypto() {
            throw CryptoFailure(
                call: "loading \(String(cString: CTransfer_crypto_library()))", message: String(cString: reason))
        }
        guard let context = EVP_MD_CTX_new() else { throw CryptoFailure(call: "EVP_MD_CTX_new") }
        self.context = context
        try check(EVP_DigestInit_ex(context, EVP_sha256(), nil), "EVP_DigestInit_ex(SHA-256)")
    }

    /// A context in the same state as `other`. The corresponding C function is `EVP_MD_CTX_copy_ex`.
    init(copying other: DigestContext) throws(CryptoFailure) {
        guard let context = EVP_MD_CTX_new() else { throw CryptoFailure(call: "EVP_MD_CTX_new") }
        self.context = context
        try check(EVP_MD_CTX_copy_ex(context, other.context), "EVP_MD_CTX_copy_ex")
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ data: Data) throws(CryptoFailure) {
        try check(data.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }, "EVP_DigestUpdate")
    }

    /// Ends the digest; the context takes no more bytes after this.
    func finish() throws(CryptoFailure) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        try check(EVP_DigestFinal_ex(context, &digest, &length), "EVP_DigestFinal_ex")
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}

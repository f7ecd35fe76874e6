import CCurl
import Foundation

/// libcurl's global state, initialised once per process before any handle exists.
enum CurlGlobal {
    static let initialised: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()
}

/// Why libcurl gave up on a transfer, in its own words.
struct CurlFailure: Error {
    var code: CURLcode
    var message: String

    var isConnectFailure: Bool {
        [CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT].contains(code)
    }
    var isTimeout: Bool { code == CURLE_OPERATION_TIMEDOUT }
    var isTLS: Bool {
        [CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
         CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH].contains(code)
    }
    var isTooManyRedirects: Bool { code == CURLE_TOO_MANY_REDIRECTS }
    var isCutShort: Bool {
        [CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_HTTP2_STREAM].contains(code)
    }
    var isAbortedByCallback: Bool { code == CURLE_WRITE_ERROR || code == CURLE_ABORTED_BY_CALLBACK }
    var isUnsupportedProtocol: Bool { code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT }
}

/// Receives what a transfer produces. Called on the thread that runs `perform()`.
protocol CurlSink: AnyObject {
    /// A header line of the response, CRLF included; a new status line starts a new response (redirects).
    func header(_ line: Data)
    /// A chunk of the body; returning false aborts the transfer.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// One libcurl easy handle, reused across requests so connections are kept alive.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    init() {
        precondition(CurlGlobal.initialised, "curl_global_init failed")
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init returned NULL (out of memory)") }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Clears per-request options but keeps the connection cache. The corresponding C function is `curl_easy_reset`.
    func reset() {
        curl_easy_reset(handle)
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    /// Sets a numeric option. The corresponding C function is `curl_easy_setopt`.
    func set(_ option: CURLoption, _ value: Int) {
        _ = CCurl_setopt_long(handle, option, value)
    }

    /// Sets a string option; libcurl copies it. The corresponding C function is `curl_easy_setopt`.
    func set(_ option: CURLoption, _ value: String) {
        _ = CCurl_setopt_string(handle, option, value)
    }

    /// Sets a 64-bit size option. The corresponding C function is `curl_easy_setopt`.
    func set(_ option: CURLoption, offset value: Int64) {
        _ = CCurl_setopt_off(handle, option, curl_off_t(value))
    }

    /// Replaces the request headers. The corresponding C function is `curl_easy_setopt(CURLOPT_HTTPHEADER)`.
    func setHeaders(_ lines: [String]) {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        for line in lines { headerList = curl_slist_append(headerList, line) }
        _ = CCurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
    }

    /// Sets the request body; libcurl keeps its own copy. The corresponding C function is
    /// `curl_easy_setopt(CURLOPT_COPYPOSTFIELDS)`.
    func setBody(_ data: Data) {
        set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(data.count))
        if data.isEmpty {
            set(CURLOPT_COPYPOSTFIELDS, "")
            return
        }
        data.withUnsafeBytes { bytes in
            _ = CCurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
    }

    /// Runs the transfer, feeding `sink`. The corresponding C function is `curl_easy_perform`.
    func perform(sink: CurlSink) throws(CurlFailure) {
        let context = Unmanaged.passRetained(SinkBox(sink))
        defer { context.release() }
        let opaque = context.toOpaque()
        _ = CCurl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
            guard let context, let buffer else { return 0 }
            let box = Unmanaged<SinkBox>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            return box.sink.body(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
        }
        _ = CCurl_setopt_pointer(handle, CURLOPT_WRITEDATA, opaque)
        _ = CCurl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
            guard let context, let buffer else { return 0 }
            let box = Unmanaged<SinkBox>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            box.sink.header(Data(bytes: buffer, count: length))
            return length
        }
        _ = CCurl_setopt_pointer(handle, CURLOPT_HEADERDATA, opaque)
        errorBuffer.withUnsafeMutableBufferPointer { buffer in
            buffer[0] = 0
            _ = CCurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            let code = curl_easy_perform(handle)
            _ = CCurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
            if code != CURLE_OK {
                let detail = String(cString: buffer.baseAddress!)
                let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
                failure = CurlFailure(code: code, message: message)
            } else {
                failure = nil
            }
        }
        if let failure { throw failure }
    }
    private var failure: CurlFailure?

    /// The final response's status code. The corresponding C function is `curl_easy_getinfo(CURLINFO_RESPONSE_CODE)`.
    var responseCode: Int {
        var code = 0
        _ = CCurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The URL after redirects. The corresponding C function is `curl_easy_getinfo(CURLINFO_EFFECTIVE_URL)`.
    var effectiveURL: String? {
        var pointer: UnsafeMutablePointer<CChar>?
        _ = CCurl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &pointer)
        return pointer.map { String(cString: $0) }
    }
}

/// Boxes the sink so it can travel through libcurl's `void *` user data.
private final class SinkBox {
    let sink: CurlSink
    init(_ sink: CurlSink) { self.sink = sink }
}

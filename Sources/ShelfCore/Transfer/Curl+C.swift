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
    fileprivate let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its detailed message here; it must outlive every transfer, so it lives with the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var attached: Unmanaged<SinkBox>?

    init() {
        precondition(CurlGlobal.initialised, "curl_global_init failed")
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init returned NULL (out of memory)") }
        self.handle = handle
        errorBuffer[0] = 0
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
        attached?.release()
        errorBuffer.deallocate()
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

    /// Routes the transfer's headers and body to `sink` until `detach()`. The corresponding C function is
    /// `curl_easy_setopt` (write, header and error-buffer options).
    func attach(_ sink: CurlSink) {
        detach()
        let box = Unmanaged.passRetained(SinkBox(sink))
        attached = box
        let opaque = box.toOpaque()
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
        errorBuffer[0] = 0
        _ = CCurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// Releases the sink attached for the last transfer.
    func detach() {
        attached?.release()
        attached = nil
    }

    /// The failure for a transfer's result code, with libcurl's detailed message when it left one.
    func failure(for code: CURLcode) -> CurlFailure? {
        guard code != CURLE_OK else { return nil }
        let detail = String(cString: errorBuffer)
        return CurlFailure(code: code, message: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
    }

    /// Runs the transfer, feeding `sink`. The corresponding C function is `curl_easy_perform`.
    func perform(sink: CurlSink) throws(CurlFailure) {
        attach(sink)
        defer { detach() }
        if let failure = failure(for: curl_easy_perform(handle)) { throw failure }
    }

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

/// A libcurl multi handle: many transfers driven from one thread.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer
    private var transfers: [UnsafeMutableRawPointer: CurlEasy] = [:]

    /// Caps connections in total and per host. The corresponding C function is `curl_multi_init`.
    init(maxConnections: Int, maxPerHost: Int) {
        precondition(CurlGlobal.initialised, "curl_global_init failed")
        guard let handle = curl_multi_init() else { fatalError("curl_multi_init returned NULL (out of memory)") }
        self.handle = handle
        _ = CCurl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections)
        _ = CCurl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, maxPerHost)
    }

    deinit {
        for easy in transfers.values { curl_multi_remove_handle(handle, easy.handle) }
        curl_multi_cleanup(handle)
    }

    /// Starts a transfer. The corresponding C function is `curl_multi_add_handle`.
    func add(_ easy: CurlEasy) {
        transfers[easy.handle] = easy
        curl_multi_add_handle(handle, easy.handle)
    }

    /// Stops a transfer (finished or abandoned). The corresponding C function is `curl_multi_remove_handle`.
    func remove(_ easy: CurlEasy) {
        guard transfers.removeValue(forKey: easy.handle) != nil else { return }
        curl_multi_remove_handle(handle, easy.handle)
    }

    var isEmpty: Bool { transfers.isEmpty }

    /// Moves every transfer along and waits up to `timeout` ms for activity; returns the finished ones.
    /// The corresponding C functions are `curl_multi_perform`, `curl_multi_poll` and `curl_multi_info_read`.
    func step(timeout: Int32) -> [(CurlEasy, CURLcode)] {
        var running: Int32 = 0
        _ = curl_multi_perform(handle, &running)
        var finished: [(CurlEasy, CURLcode)] = []
        var pending: Int32 = 0
        while let message = curl_multi_info_read(handle, &pending) {
            guard message.pointee.msg == CURLMSG_DONE, let easyHandle = message.pointee.easy_handle,
                let easy = transfers[easyHandle]
            else { continue }
            finished.append((easy, message.pointee.data.result))
        }
        if finished.isEmpty && running > 0 {
            _ = curl_multi_poll(handle, nil, 0, timeout, nil)
        }
        return finished
    }
}

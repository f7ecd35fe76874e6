import CCurl
import CTransferLoader
import Foundation
import Synchronization

/// libcurl, opened (it is not linked: see CTransferLoader) and its global state initialised once per process,
/// before any handle exists.
enum CurlGlobal {
    /// nil once libcurl is ready; else why not, in one line.
    static let failure: String? = {
        if let reason = CTransfer_load_curl() {
            return "cannot load \(String(cString: CTransfer_curl_library())): \(String(cString: reason))"
        }
        do throws(CurlFailure) {
            try check(curl_global_init(Int(CURL_GLOBAL_DEFAULT)), "curl_global_init")
            return nil
        } catch {
            return "\(error)"
        }
    }()

    /// Loads and initialises libcurl on first use; every client calls it before its first handle.
    static func ready() throws(NetworkError) {
        if let failure { throw .libraryMissing(failure) }
    }
}

/// A libcurl call that failed, in libcurl's own words: the one error every libcurl result becomes.
///
/// The clients turn a transfer's failure into a `NetworkError` or a part's result; one that reaches the patron
/// as it is (the multi interface itself failing) is an internal error.
struct CurlFailure: ShelfFailure {
    /// The easy interface's code (a transfer, an option, an info) or the multi interface's.
    enum Code: Equatable {
        case easy(CURLcode)
        case multi(CURLMcode)
    }

    var code: Code
    /// The call that failed: `curl_easy_perform`, `curl_easy_setopt(CURLOPT_MAXREDIRS)`…
    var call: String
    /// libcurl's detailed message when it left one, else its message for the code.
    var message: String

    init(_ code: Code, call: String, detail: String = "") {
        self.code = code
        self.call = call
        switch code {
        case _ where !detail.isEmpty: message = detail
        case .easy(let code): message = String(cString: curl_easy_strerror(code))
        case .multi(let code): message = String(cString: curl_multi_strerror(code))
        }
    }

    var description: String { "\(call) failed: \(message)" }
    var exitCode: ShelfExit { .internalError }

    private func isOne(of codes: CURLcode...) -> Bool {
        guard case .easy(let code) = code else { return false }
        return codes.contains(code)
    }

    var isConnectFailure: Bool { isOne(of: CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT) }
    var isTimeout: Bool { isOne(of: CURLE_OPERATION_TIMEDOUT) }
    var isTLS: Bool {
        isOne(of: CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
              CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH)
    }
    var isTooManyRedirects: Bool { isOne(of: CURLE_TOO_MANY_REDIRECTS) }
    var isCutShort: Bool {
        isOne(of: CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_HTTP2_STREAM)
    }
    var isAbortedByCallback: Bool { isOne(of: CURLE_WRITE_ERROR, CURLE_ABORTED_BY_CALLBACK) }
    var isUnsupportedProtocol: Bool { isOne(of: CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT) }
}

/// A result code from either of libcurl's interfaces, so both go through the one `check`.
private protocol CurlResultCode {
    /// The failure, or nil when the call succeeded.
    var failure: CurlFailure.Code? { get }
}

extension CURLcode: CurlResultCode {
    fileprivate var failure: CurlFailure.Code? { self == CURLE_OK ? nil : .easy(self) }
}

extension CURLMcode: CurlResultCode {
    fileprivate var failure: CurlFailure.Code? { self == CURLM_OK ? nil : .multi(self) }
}

/// Every libcurl result goes through here: a failure becomes a `CurlFailure` naming the call, with libcurl's
/// detailed message (`detail`, its error buffer) when it left one. (swift-system's `valueOrErrno`.)
private func check(
    _ result: some CurlResultCode, _ call: @autoclosure () -> String, detail: UnsafePointer<CChar>? = nil
) throws(CurlFailure) {
    guard let code = result.failure else { return }
    throw CurlFailure(code, call: call(), detail: detail.map { String(cString: $0) } ?? "")
}

/// `check` where nothing can be thrown (a deinit): a failure there is a bug in shelf, so debug builds stop on it.
private func checkReleasing(_ result: some CurlResultCode, _ call: @autoclosure () -> String) {
    do { try check(result, call()) } catch { assertionFailure("\(error)") }
}

/// What an option is called, for messages. The corresponding C function is `curl_easy_option_by_id`.
private func name(_ option: CURLoption) -> String {
    curl_easy_option_by_id(option).flatMap { $0.pointee.name }.map { "CURLOPT_" + String(cString: $0) }
        ?? "option \(option.rawValue)"
}

/// One request as libcurl is to make it. `CurlEasy.prepare` turns it into options: the one place they are
/// written, so the single-request client and the part downloader get the same hardening.
struct CurlRequest {
    var url: String
    var method = "GET"
    var headerLines: [String] = []
    var body: Data?
    /// Identity and limits: user agent, connect timeout, redirect limit.
    var configuration: HTTPConfiguration
    /// Seconds at under `stallRate` bytes a second before the transfer is abandoned.
    var stallTimeout: Int
    /// 1 for parts, whose own floor is judged over a longer window; more for documents (`HTTPConfiguration`).
    var stallRate = 1
    /// Seconds for the whole transfer, or nil for none (an audiobook part may take long on a slow line).
    var totalTimeout: Int?
    /// Asks for a compressed body and decodes it. Off for parts: a Range counts the bytes as the server holds them.
    var decodesContent: Bool
    var maxReceiveSpeed: Int64?
    var bufferSize: Int?
}

/// Receives what a transfer produces. Called on the thread that runs the transfer.
protocol CurlSink: AnyObject {
    /// A header line of the response, CRLF included; a new status line starts a new response (redirects).
    func header(_ line: Data)
    /// A chunk of the body; returning false aborts the transfer.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// One libcurl easy handle, reused across requests so connections are kept alive.
///
/// `@unchecked Sendable` because it owns a C handle that may move from thread to thread: libcurl allows an easy
/// handle on any thread provided one thread uses it at a time (libcurl-thread(3)). Nothing uses one from two
/// threads at once: `CurlHandles` lends an idle handle to one request at a time, and a part's transfer keeps
/// its own on the downloader's thread.
final class CurlEasy: @unchecked Sendable {
    fileprivate let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its detailed message here; it must outlive every transfer, so it lives with the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var attached: Unmanaged<SinkBox>?

    init() {
        precondition(CurlGlobal.failure == nil, "a client made a handle before CurlGlobal.ready()")
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

    /// Sets up the handle for `request`, its headers and body going to `sink` until `detach()`; the hardening
    /// every request shares comes first. The corresponding C functions are `curl_easy_reset` and `curl_easy_setopt`.
    func prepare(_ request: CurlRequest, sink: CurlSink) throws(CurlFailure) {
        curl_easy_reset(handle)
        detach()
        do {
            let configuration = request.configuration
            try set(CURLOPT_URL, request.url)
            try set(CURLOPT_PROTOCOLS_STR, "http,https")
            try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            try set(CURLOPT_FOLLOWLOCATION, configuration.followRedirects ? 1 : 0)
            try set(CURLOPT_MAXREDIRS, configuration.maxRedirects)
            // Credentials never follow a redirect to another host.
            try set(CURLOPT_UNRESTRICTED_AUTH, 0)
            try set(CURLOPT_SSL_VERIFYPEER, 1)
            try set(CURLOPT_SSL_VERIFYHOST, 2)
            try set(CURLOPT_NOSIGNAL, 1)
            try set(CURLOPT_USERAGENT, configuration.userAgent)
            try set(CURLOPT_CONNECTTIMEOUT, configuration.connectTimeout)
            try set(CURLOPT_LOW_SPEED_LIMIT, max(1, request.stallRate))
            try set(CURLOPT_LOW_SPEED_TIME, request.stallTimeout)
            if let seconds = request.totalTimeout { try set(CURLOPT_TIMEOUT, seconds) }
            if request.decodesContent { try set(CURLOPT_ACCEPT_ENCODING, "") }
            if let size = request.bufferSize { try set(CURLOPT_BUFFERSIZE, size) }
            if let speed = request.maxReceiveSpeed {
                try check(CCurl_setopt_off(handle, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(speed)),
                          "curl_easy_setopt(\(name(CURLOPT_MAX_RECV_SPEED_LARGE)))")
            }
            if let body = request.body {
                try set(CURLOPT_CUSTOMREQUEST, request.method)
                try setBody(body)
            } else if request.method == "HEAD" {
                try set(CURLOPT_NOBODY, 1)
            } else if request.method != "GET" {
                try set(CURLOPT_CUSTOMREQUEST, request.method)
            }
            try setLogin(request)
            try setHeaders(request.headerLines + ["Expect:"])
            try attach(sink)
        } catch {
            detach()
            throw error
        }
    }

    /// Hands the configuration's user name and password to libcurl, which answers the server's Basic or Digest
    /// challenge itself, for a request to their own origin only; a request that carries its own Authorization
    /// header (a bearer token) keeps it. With `CURLOPT_UNRESTRICTED_AUTH` off, libcurl drops them on a redirect
    /// to another host, port or scheme. The corresponding C function is `curl_easy_setopt` (`CURLOPT_HTTPAUTH`,
    /// `CURLOPT_USERNAME`, `CURLOPT_PASSWORD`).
    private func setLogin(_ request: CurlRequest) throws(CurlFailure) {
        guard let login = request.configuration.login, let url = URL(string: request.url), login.applies(to: url),
            !request.headerLines.contains(where: { $0.lowercased().hasPrefix("authorization:") })
        else { return }
        try set(CURLOPT_HTTPAUTH, login.scheme == .basic ? CCurl_auth_basic() : CCurl_auth_digest())
        try set(CURLOPT_USERNAME, login.username)
        try set(CURLOPT_PASSWORD, login.password)
    }

    /// Sets a numeric option. The corresponding C function is `curl_easy_setopt`.
    private func set(_ option: CURLoption, _ value: Int) throws(CurlFailure) {
        try check(CCurl_setopt_long(handle, option, value), "curl_easy_setopt(\(name(option)))")
    }

    /// Sets a string option; libcurl copies it. The corresponding C function is `curl_easy_setopt`.
    private func set(_ option: CURLoption, _ value: String) throws(CurlFailure) {
        try check(CCurl_setopt_string(handle, option, value), "curl_easy_setopt(\(name(option)))")
    }

    /// Sets a pointer option. The corresponding C function is `curl_easy_setopt`.
    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(CurlFailure) {
        try check(CCurl_setopt_pointer(handle, option, pointer), "curl_easy_setopt(\(name(option)))")
    }

    /// Replaces the request headers. The corresponding C functions are `curl_slist_append` and
    /// `curl_easy_setopt(CURLOPT_HTTPHEADER)`.
    private func setHeaders(_ lines: [String]) throws(CurlFailure) {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        for line in lines {
            guard let longer = curl_slist_append(headerList, line) else {
                throw CurlFailure(.easy(CURLE_OUT_OF_MEMORY), call: "curl_slist_append")
            }
            headerList = longer
        }
        try check(CCurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), "curl_easy_setopt(\(name(CURLOPT_HTTPHEADER)))")
    }

    /// Sets the request body; libcurl keeps its own copy. The corresponding C function is
    /// `curl_easy_setopt(CURLOPT_COPYPOSTFIELDS)`.
    private func setBody(_ data: Data) throws(CurlFailure) {
        try check(CCurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(data.count)),
                  "curl_easy_setopt(\(name(CURLOPT_POSTFIELDSIZE_LARGE)))")
        if data.isEmpty { return try set(CURLOPT_COPYPOSTFIELDS, "") }
        let result = data.withUnsafeBytes { bytes in
            CCurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
        try check(result, "curl_easy_setopt(\(name(CURLOPT_COPYPOSTFIELDS)))")
    }

    /// Routes the transfer's headers and body to `sink`. The corresponding C function is `curl_easy_setopt`
    /// (write, header and error-buffer options).
    private func attach(_ sink: CurlSink) throws(CurlFailure) {
        let box = Unmanaged.passRetained(SinkBox(sink))
        attached = box
        let opaque = box.toOpaque()
        try check(
            CCurl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
                guard let context, let buffer else { return 0 }
                let box = Unmanaged<SinkBox>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                return box.sink.body(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
            }, "curl_easy_setopt(\(name(CURLOPT_WRITEFUNCTION)))")
        try set(CURLOPT_WRITEDATA, pointer: opaque)
        try check(
            CCurl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
                guard let context, let buffer else { return 0 }
                let box = Unmanaged<SinkBox>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                box.sink.header(Data(bytes: buffer, count: length))
                return length
            }, "curl_easy_setopt(\(name(CURLOPT_HEADERFUNCTION)))")
        try set(CURLOPT_HEADERDATA, pointer: opaque)
        errorBuffer[0] = 0
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
    }

    /// Releases the sink attached for the last transfer.
    func detach() {
        attached?.release()
        attached = nil
    }

    /// Runs the prepared transfer on this thread, then lets go of its sink. The corresponding C function is
    /// `curl_easy_perform`.
    func perform() throws(CurlFailure) {
        defer { detach() }
        try check(curl_easy_perform(handle), "curl_easy_perform", detail: errorBuffer)
    }

    /// The failure a transfer driven by a multi handle ended with, or nil when it succeeded.
    fileprivate func failure(of result: CURLcode) -> CurlFailure? {
        do {
            try check(result, "curl_multi_perform", detail: errorBuffer)
            return nil
        } catch {
            return error
        }
    }

    /// The final response's status code. The corresponding C function is `curl_easy_getinfo(CURLINFO_RESPONSE_CODE)`.
    func responseCode() throws(CurlFailure) -> Int {
        var code = 0
        try check(CCurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code), "curl_easy_getinfo(CURLINFO_RESPONSE_CODE)")
        return code
    }

    /// Where the last response's redirect led, when it was not followed. The corresponding C function is
    /// `curl_easy_getinfo(CURLINFO_REDIRECT_URL)`.
    func redirectURL() -> String? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard CCurl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &pointer) == CURLE_OK else { return nil }
        return pointer.map { String(cString: $0) }
    }

    /// Where a request for `url` was sent by a redirect that was refused (to file:, ftp: and the like): the redirect
    /// libcurl did not follow, else the URL it had got to, when that is not `url` itself.
    func refusedRedirectTarget(from url: String) -> String? {
        redirectURL() ?? (try? effectiveURL()).flatMap { $0 == url ? nil : $0 }
    }

    /// The URL after redirects. The corresponding C function is `curl_easy_getinfo(CURLINFO_EFFECTIVE_URL)`.
    func effectiveURL() throws(CurlFailure) -> String? {
        var pointer: UnsafeMutablePointer<CChar>?
        try check(CCurl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &pointer), "curl_easy_getinfo(CURLINFO_EFFECTIVE_URL)")
        return pointer.map { String(cString: $0) }
    }
}

/// Boxes the sink so it can travel through libcurl's `void *` user data.
private final class SinkBox {
    let sink: CurlSink
    init(_ sink: CurlSink) { self.sink = sink }
}

/// Idle easy handles, each lent to one request at a time: requests from several threads get a handle each,
/// and requests one after another reuse the same handle and its open connections.
final class CurlHandles: Sendable {
    private let idle = Mutex<[CurlEasy]>([])
    /// Idle handles past this many are freed, with their connections.
    private let keep = 4

    /// Runs `body` with a handle no other thread is using.
    func withHandle<T, E: Error>(_ body: (CurlEasy) throws(E) -> T) throws(E) -> T {
        let easy = idle.withLock { $0.popLast() } ?? CurlEasy()
        defer { idle.withLock { if $0.count < keep { $0.append(easy) } } }
        return try body(easy)
    }
}

/// A libcurl multi handle: many transfers driven from one thread.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer
    private var transfers: [UnsafeMutableRawPointer: CurlEasy] = [:]

    /// Caps connections in total and per host. The corresponding C functions are `curl_multi_init` and
    /// `curl_multi_setopt`.
    init(maxConnections: Int, maxPerHost: Int) throws(CurlFailure) {
        precondition(CurlGlobal.failure == nil, "a client made a handle before CurlGlobal.ready()")
        guard let handle = curl_multi_init() else { throw CurlFailure(.multi(CURLM_OUT_OF_MEMORY), call: "curl_multi_init") }
        self.handle = handle
        try check(CCurl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections),
                  "curl_multi_setopt(CURLMOPT_MAX_TOTAL_CONNECTIONS)")
        try check(CCurl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, maxPerHost),
                  "curl_multi_setopt(CURLMOPT_MAX_HOST_CONNECTIONS)")
    }

    deinit {
        for easy in transfers.values {
            checkReleasing(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle")
            easy.detach()
        }
        checkReleasing(curl_multi_cleanup(handle), "curl_multi_cleanup")
    }

    /// Starts a transfer. The corresponding C function is `curl_multi_add_handle`.
    func add(_ easy: CurlEasy) throws(CurlFailure) {
        try check(curl_multi_add_handle(handle, easy.handle), "curl_multi_add_handle")
        transfers[easy.handle] = easy
    }

    /// Stops a transfer (finished or abandoned). The corresponding C function is `curl_multi_remove_handle`.
    func remove(_ easy: CurlEasy) throws(CurlFailure) {
        guard transfers.removeValue(forKey: easy.handle) != nil else { return }
        try check(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle")
    }

    var isEmpty: Bool { transfers.isEmpty }

    /// Moves every transfer along and waits up to `timeout` ms for activity; returns the finished ones, each
    /// with its failure (nil when it succeeded). The corresponding C functions are `curl_multi_perform`,
    /// `curl_multi_poll` and `curl_multi_info_read`.
    func step(timeout: Int32) throws(CurlFailure) -> [(CurlEasy, CurlFailure?)] {
        var running: Int32 = 0
        try check(curl_multi_perform(handle, &running), "curl_multi_perform")
        var finished: [(CurlEasy, CurlFailure?)] = []
        var pending: Int32 = 0
        while let message = curl_multi_info_read(handle, &pending) {
            guard message.pointee.msg == CURLMSG_DONE, let easyHandle = message.pointee.easy_handle,
                let easy = transfers[easyHandle]
            else { continue }
            finished.append((easy, easy.failure(of: message.pointee.data.result)))
        }
        if finished.isEmpty && running > 0 {
            try check(curl_multi_poll(handle, nil, 0, timeout, nil), "curl_multi_poll")
        }
        return finished
    }
}

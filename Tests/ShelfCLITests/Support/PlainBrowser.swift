import Foundation
import ShelfCore

/// A web browser driven with plain HTTP, for the sign-in flows: it follows redirects, fills in an identity provider's
/// sign-in form (user name, password, then Sign in or Cancel), submits the auto-posting SAML form, and runs the one
/// script shelf's callback page has (it requests the same address with the URL's fragment as its query), as a
/// browser does. Nothing is sent anywhere but where the pages lead, all on 127.0.0.1.
struct PlainBrowser {
    var username = "demo"
    var password = "1234"
    /// Press Cancel on the identity provider's form.
    var cancel = false
    /// Stop before the last redirect to shelf's listener, and give its address (to be pasted instead).
    var stopAtShelf = false

    /// Where the browser ended: the last address, its status and page.
    struct Ending {
        var url: String
        var status: Int
        var body: String
    }

    private let http: HTTPClient = {
        var configuration = HTTPConfiguration()
        configuration.followRedirects = false
        return HTTPClient(configuration: configuration)
    }()

    func visit(_ start: URL) throws -> Ending {
        var (method, url, form): (String, URL, [(String, String)]) = ("GET", start, [])
        for _ in 0..<20 {
            // A browser sends no fragment; shelf's page reads it from the address and sends it as a query.
            if url.host == "127.0.0.1", url.path.hasPrefix("/callback/"), let fragment = url.fragment, method == "GET" {
                var page = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                page.fragment = nil
                if stopAtShelf { return Ending(url: url.absoluteString, status: 0, body: "") }
                let first = try http.request(page.url!)
                guard first.status == 200, String(decoding: first.body, as: UTF8.self).contains("location.hash") else {
                    return Ending(url: page.url!.absoluteString, status: first.status, body: String(decoding: first.body, as: UTF8.self))
                }
                page.percentEncodedQuery = fragment
                let relayed = try http.request(page.url!)
                return Ending(url: page.url!.absoluteString, status: relayed.status, body: String(decoding: relayed.body, as: UTF8.self))
            }
            if stopAtShelf, url.host == "127.0.0.1", url.path.hasPrefix("/callback/") {
                return Ending(url: url.absoluteString, status: 0, body: "")
            }
            let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
            let response = try http.request(
                url, method: method,
                headers: method == "POST" ? ["Content-Type": "application/x-www-form-urlencoded"] : [:],
                body: method == "POST" ? Data(body.utf8) : nil)
            let page = String(decoding: response.body, as: UTF8.self)
            if (300..<400).contains(response.status), let location = response.header("location"),
               let next = URL(string: location, relativeTo: url)?.absoluteURL {
                (method, url, form) = ("GET", next, [])
                continue
            }
            // A form to fill in or submit; an identity provider's error stops the browser there, as a person would.
            guard !page.contains(#"class="error""#), let action = Self.first(#"<form method="post" action="([^"]*)""#, in: page),
                  let target = URL(string: action, relativeTo: url)?.absoluteURL
            else {
                return Ending(url: url.absoluteString, status: response.status, body: page)
            }
            var fields = Self.all(#"<input type="hidden" name="([^"]*)" value="([^"]*)""#, in: page).map { ($0[0], Self.unescape($0[1])) }
            if page.contains(#"name="username""#) {
                fields += [("username", username), ("password", password), cancel ? ("cancel", "1") : ("signin", "1")]
            }
            (method, url, form) = ("POST", target, fields)
        }
        throw URLError(.httpTooManyRedirects)
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    static func first(_ pattern: String, in text: String) -> String? { all(pattern, in: text).first?.first }

    static func all(_ pattern: String, in text: String) -> [[String]] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
        }
    }
}

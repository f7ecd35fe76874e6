import Hummingbird

/// The patron's shelf, behind HTTP Basic authentication.
enum LoansRoutes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState, realm: String) {
        router.get("/loans") { request, _ in
            guard let credentials = HTTPSupport.basicCredentials(request),
                  await state.accepts(username: credentials.username, password: credentials.password)
            else {
                let supplied = request.headers[.authorization] != nil
                return HTTPSupport.problem(
                    .unauthorized,
                    type: "http://librarysimplified.org/terms/problem/credentials-invalid",
                    title: supplied ? "Invalid credentials" : "Credentials required",
                    detail: supplied ? "A valid library card barcode or password was not provided."
                        : "Sign in with the demo library card to see loans.",
                    headers: [.wwwAuthenticate: "Basic realm=\"\(realm)\""]
                )
            }
            return HTTPSupport.xml(await state.loansFeed())
        }
    }
}

import TLSFacts

/// Location headers, resolved as RFC 3986 section 5 says (URLSession resolves them the same
/// way): absolute, network-path ("//host/x"), absolute-path, or relative with dot segments
/// removed. The value is the server's choice, so a Location holding a control character (CR,
/// LF, NUL: header injection) ends the load rather than reach the next request line.
enum Redirects {
    static func resolve(_ location: String, from current: Target) -> Target? {
        guard location.utf8.count <= 2048, !location.unicodeScalars.contains(where: URIReference.isControl) else { return nil }
        let absolute: String?
        if URIReference.scheme(of: location) != nil {
            absolute = location
        } else if location.hasPrefix("//") {
            absolute = current.scheme.rawValue + ":" + location
        } else {
            absolute = nil
        }
        if let absolute {
            guard var next = try? Target(parsing: absolute),
                  let path = URIReference.resolve(next.path, againstPath: "/") else { return nil }
            next.path = path
            if next.host == current.host && next.port == current.port {
                next.connectAddress = current.connectAddress
                next.connectPort = current.connectPort
            }
            return next
        }
        guard let path = URIReference.resolve(location, againstPath: current.path) else { return nil }
        var next = current
        next.path = path
        return next
    }
}

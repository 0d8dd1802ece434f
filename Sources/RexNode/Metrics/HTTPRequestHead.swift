import RexCluster

/// The request line of an HTTP/1.x request, parsed from the bytes a connection sent so far.
///
/// Pure (no I/O) so the endpoint's decisions can be tested on bytes alone. Only what a metrics
/// endpoint needs is read: the method and the path (without its query); header fields are
/// skipped, and a body is never read (every response closes the connection).
struct HTTPRequestHead: Equatable {
    var method: String
    /// The request target up to `?`.
    var path: String

    /// What the bytes received so far amount to.
    enum Parse: Equatable {
        /// No blank line yet: wait for more (unless the buffer is at its limit).
        case incomplete
        case request(HTTPRequestHead)
        /// Not an HTTP/1.x request line.
        case malformed
    }

    /// Parses `bytes` when they hold a whole head (request line and fields, up to the blank line).
    static func parse(_ bytes: [UInt8]) -> Parse {
        guard let end = headEnd(bytes) else { return .incomplete }
        let lineEnd = bytes[..<end].firstIndex(of: UInt8(ascii: "\n")) ?? end
        var line = bytes[..<lineEnd]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte),
            parts[1].first == UInt8(ascii: "/") || parts[1].elementsEqual("*".utf8),
            parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            parts[2].starts(with: "HTTP/1.".utf8), parts[2].count == 8
        else { return .malformed }
        let target = parts[1]
        let path = target.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target
        return .request(
            HTTPRequestHead(
                method: String(decoding: parts[0], as: UTF8.self), path: String(decoding: path, as: UTF8.self)))
    }

    /// The index just before the blank line ending the head (`\r\n\r\n`, or a bare `\n\n`).
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = bytes.startIndex
        while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let after = newline + 1
            if after < bytes.endIndex, bytes[after] == UInt8(ascii: "\n") { return newline }
            if after + 1 < bytes.endIndex, bytes[after] == UInt8(ascii: "\r"), bytes[after + 1] == UInt8(ascii: "\n") {
                return newline
            }
            index = after
        }
        return nil
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}

/// A complete HTTP/1.1 response that closes the connection.
struct HTTPResponse {
    var status: Int
    var reason: String
    var contentType = "text/plain; charset=utf-8"
    var extraHeaders: [(String, String)] = []
    var body: [UInt8]

    static func text(_ status: Int, _ reason: String, _ body: String) -> Self {
        HTTPResponse(status: status, reason: reason, body: Array(body.utf8))
    }

    /// The status line, headers and (unless `includeBody` is false, for HEAD) the body.
    func bytes(includeBody: Bool = true) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + (includeBody ? body : [])
    }
}

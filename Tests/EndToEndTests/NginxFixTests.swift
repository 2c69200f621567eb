import Foundation
import Testing
import TestSupport

/// Issue 25: the nginx lines of a host's server fixes, applied as the text says (a "replace"
/// line removes the directive of the same name from the server block, an "add" line is added),
/// give a configuration `nginx -t` accepts. The fixes of one host merge per directive, so
/// pasting them all never repeats `ssl_ciphers` ("directive is duplicate"). Runs the system
/// nginx binary when one is installed (apt-get install nginx-light), and says why it skips
/// otherwise. nginx -t reads the configuration and the certificate only: nothing listens.
@Suite struct NginxFixTests {
    static let nginxCandidates = ["/usr/sbin/nginx", "/usr/bin/nginx"]

    /// A server block with the directives the fixes change, as a TLS 1.1 + static RSA server has them.
    static func configuration(directory: String, serverLines: [String]) -> String {
        let temporary = "\(directory)/tmp"
        return """
        pid \(directory)/nginx.pid;
        events {}
        http {
            client_body_temp_path \(temporary); proxy_temp_path \(temporary); fastcgi_temp_path \(temporary);
            uwsgi_temp_path \(temporary); scgi_temp_path \(temporary);
            access_log off;
            server {
        \(serverLines.map { "        " + $0 }.joined(separator: "\n"))
            }
        }

        """
    }

    @Test func theMergedNginxLinesPassNginxT() async throws {
        guard let nginx = try RequiredTool.executable(Self.nginxCandidates, install: "apt-get install nginx-light",
                                                      for: "NginxFixTests: nginx -t") else { return }
        let scenario = ExceptionScenarioTests.scenarios.first { $0.name == "TLS 1.1 + static RSA" }!
        let result = try await ExceptionScenarioTests.run(scenario, ["--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let fixes = try #require((document["suggestion"] as? [String: Any])?["fixes"] as? [[String: Any]])
        let lines = fixes.flatMap { $0["nginx"] as? [String] ?? [] }
        #expect(lines.count >= 3, "\(fixes)")

        let directory = try TemporaryDirectory(prefix: "atsprobe-nginx")
        try FileManager.default.createDirectory(atPath: directory.path("tmp"), withIntermediateDirectories: true)
        let key = directory.path("key.pem"), certificate = directory.path("cert.pem")
        let openssl = try await ChildProcess.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                                                                      "-keyout", key, "-out", certificate, "-days", "2"], timeout: 60)
        #expect(openssl.status == 0, "\(openssl.stderr)")

        var server = ["listen 127.0.0.1:8443 ssl;", "server_name localhost;",
                      "ssl_certificate \(certificate);", "ssl_certificate_key \(key);",
                      "ssl_protocols TLSv1.1;", "ssl_ciphers AES128-SHA;"]
        // As the text says: "replace" removes the block's own line for that directive first.
        let textResult = try await ExceptionScenarioTests.run(scenario, [])
        for line in lines {
            let directive = String(line.prefix { !$0.isWhitespace && $0 != ";" })
            let replaces = textResult.stdout.contains("replace \(line)")
            let adds = textResult.stdout.contains("add     \(line)")
            #expect(replaces != adds, "the text says replace or add for '\(line)':\n\(textResult.stdout)")
            if replaces { server.removeAll { $0.hasPrefix(directive + " ") } }
        }
        server += lines
        let path = try directory.write("nginx.conf", Self.configuration(directory: directory.url.path, serverLines: server))
        let check = try await ChildProcess.run(nginx, ["-t", "-q", "-e", directory.path("error.log"), "-p", directory.url.path, "-c", path],
                                               timeout: 30)
        #expect(!check.timedOut)
        let written = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        #expect(check.status == 0, "nginx -t: \(check.stderr)\n\(written)")
    }
}

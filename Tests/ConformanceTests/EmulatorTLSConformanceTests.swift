import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

@Suite("chappie emulator --tls: the emulator over HTTPS with a certificate authority made per run")
struct EmulatorTLSConformanceTests {
    /// Python's `urllib` GETs `url` with `token`, trusting `authority` (nil: the system's trust store).
    func get(_ url: String, token: String, authority: String?) async throws -> TestProcess.Result {
        let script = """
            import json, ssl, sys, urllib.request
            context = ssl.create_default_context(cafile=sys.argv[3]) if len(sys.argv) > 3 else ssl.create_default_context()
            request = urllib.request.Request(sys.argv[1], headers={"Authorization": "Bearer " + sys.argv[2]})
            try:
                print(urllib.request.urlopen(request, context=context, timeout=30).read().decode())
            except Exception as error:
                if "CERTIFICATE_VERIFY_FAILED" not in str(error):
                    raise
                print("tls-error", error, file=sys.stderr)
                sys.exit(3)
            """
        return try await TestProcess.run(ClientAvailability.python, [ClientAvailability.python3, "-c", script, url, token] + (authority.map { [$0] } ?? []),
                                        timeLimit: .seconds(60))
    }

    @Test(
        "A client trusting the printed CA gets every route over HTTPS, and accounts/check names the https origin",
        .enabled(if: TestCertificates.isAvailable, "openssl is not installed")
    )
    func httpsRoutes() async throws {
        try await ChappieEmulator.with { emulator in
            let tls = try await emulator.startTLS()
            do {
                let token = await emulator.issueTokens().accessToken
                #expect(FileManager.default.fileExists(atPath: tls.certificateAuthorityPath))
                // when
                let check = try await get(tls.backendBaseURL.absoluteString + "/wham/accounts/check", token: token,
                                          authority: tls.certificateAuthorityPath)
                // then
                #expect(check.status == 0, "\(check.stderr)")
                let json = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
                let account = (json?["accounts"] as? [[String: Any]])?.first
                #expect(account?["workspace_backend_origin"] as? String == tls.baseURL.absoluteString)
                let usage = try await get(tls.backendBaseURL.absoluteString + "/wham/usage", token: token, authority: tls.certificateAuthorityPath)
                #expect(usage.status == 0 && usage.stdout.contains("\"plan_type\""))
                // and the plain port still names the plain origin
                let recorded = await emulator.recordedRequests().filter { $0.path == "/backend-api/wham/accounts/check" }
                #expect(recorded.first?.header("Host") == "127.0.0.1:\(tls.port)")
                // and without the CA the certificate is not trusted
                let untrusted = try await get(tls.backendBaseURL.absoluteString + "/wham/usage", token: token, authority: nil)
                #expect(untrusted.status == 3, "\(untrusted.stdout)\(untrusted.stderr)")
            } catch {
                await tls.shutdown()
                throw error
            }
            let folder = URL(fileURLWithPath: tls.certificateAuthorityPath).deletingLastPathComponent()
            await tls.shutdown()
            #expect(!FileManager.default.fileExists(atPath: folder.path), "the certificates are deleted")
        }
    }
}

import Foundation
import Testing
@testable import ChappieCore

@Suite("Sign in with ChatGPT: primitives")
struct SIWCPrimitivesTests {
    @Test("SHA-256 matches the FIPS 180-4 test vectors")
    func sha256() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("the PKCE challenge is BASE64URL-NOPAD(SHA-256(verifier)), as Python's hashlib computes it")
    func pkce() {
        #expect(AuthorizationRequest.challenge(for: "dBjftJeZ4CVP-mJ92K1s-q1CCQ8pYqrpmf1WE-Q0KqA") == "YTgAUdoIZkGYFEOoPmnc2WCeqINcwkgXWL3IAXQknOM")
    }

    @Test("a discovery document for another issuer, or with an endpoint on another origin, is refused")
    func discoveryChecks() throws {
        let issuer = URL(string: "https://auth.example")!
        func document(issuer: String = "https://auth.example", token: String = "https://auth.example/oauth/token") -> Data {
            Data(#"{"issuer":"\#(issuer)","authorization_endpoint":"https://auth.example/authorize","token_endpoint":"\#(token)","jwks_uri":"https://auth.example/jwks"}"#.utf8)
        }
        #expect(try OpenIDDiscovery(document: document(), expectedIssuer: issuer).revocationEndpoint == nil)
        #expect(throws: ChappieAuthError.self) { try OpenIDDiscovery(document: document(issuer: "https://auth.example/"), expectedIssuer: issuer) }
        #expect(throws: ChappieAuthError.self) { try OpenIDDiscovery(document: document(token: "https://evil.example/token"), expectedIssuer: issuer) }
    }

    @Test("issued client ids are checked: dynamic_agent_client and odd characters are refused")
    func clientIDs() {
        #expect(SignInWithChatGPTFlow.isIssuedClientID("oaiapp_abc-123"))
        #expect(!SignInWithChatGPTFlow.isIssuedClientID("dynamic_agent_client"))
        #expect(!SignInWithChatGPTFlow.isIssuedClientID("oaiapp x"))
        #expect(!SignInWithChatGPTFlow.isIssuedClientID(""))
    }

    @Test("the installation record is a 0600 file beside the credentials, with a urn:uuid host id kept across loads")
    func installationFile() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "siwc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileInstallationStore(directory: directory, service: "com.example.app")
        let created = try store.loadOrCreate()
        #expect(created.hostID.hasPrefix("urn:uuid:") && created.hostID.count == 45)
        #expect(try store.loadOrCreate().hostID == created.hostID)
        let mode = try FileManager.default.attributesOfItem(atPath: store.fileURL.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("labels stay distinct when two registrations share an email")
    func labels() {
        var record = SIWCInstallation.fresh()
        record.registrations = [SIWCRegistration(clientID: "oaiapp_1", issuer: "i", slot: "default", email: "a@b.c", label: "a@b.c")]
        #expect(record.distinctLabel(for: "a@b.c", excluding: "oaiapp_2") == "a@b.c (2)")
        #expect(record.distinctLabel(for: "a@b.c", excluding: "oaiapp_1") == "a@b.c")
    }
}

/// A one-item keychain that records what was added.
private final class OneItemKeychain: KeychainItemCalls, @unchecked Sendable {
    // Sound: every access to the mutable state goes through `lock`.
    private let lock = NSLock()
    private var item: KeychainQuery?
    private(set) var added: [KeychainQuery] = []

    var addedQueries: [KeychainQuery] { lock.withLock { added } }

    func copyMatching(_ query: KeychainQuery) -> (status: KeychainStatus, data: Data?) {
        lock.withLock {
            guard let item, case .data(let data)? = item[.valueData] else { return (.itemNotFound, nil) }
            return (.success, data)
        }
    }
    func add(_ attributes: KeychainQuery) -> KeychainStatus {
        lock.withLock { item = attributes; added.append(attributes); return .success }
    }
    func update(_ query: KeychainQuery, changes: KeychainQuery) -> KeychainStatus {
        lock.withLock {
            guard let current = item else { return .itemNotFound }
            item = current.merging(changes)
            return .success
        }
    }
    func delete(_ query: KeychainQuery) -> KeychainStatus { lock.withLock { item = nil; return .success } }
    func message(for status: KeychainStatus) -> String? { nil }
}

@Suite("Sign in with ChatGPT: the installation record in the Keychain")
struct SIWCKeychainInstallationTests {
    @Test("the host id lives in a Keychain item that never syncs and never leaves the device")
    func keychainItem() throws {
        let keychain = OneItemKeychain()
        let store = KeychainInstallationStore(service: "com.example.app", accessGroup: nil, calls: keychain)
        let created = try store.loadOrCreate()
        #expect(try store.loadOrCreate().hostID == created.hostID)
        let added = try #require(keychain.addedQueries.first)
        #expect(keychain.addedQueries.count == 1)
        #expect(added[.synchronizable] == .bool(false))
        #expect(added[.accessible] == .constant(.accessibleAfterFirstUnlockThisDeviceOnly))
        #expect(added[.service] == .string("com.example.app.siwc-installation"))
    }
}

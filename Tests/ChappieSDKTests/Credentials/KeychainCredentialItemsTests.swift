import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// A keychain that answers the four Security calls like `SecItem…` does for generic passwords
/// (items keyed by service, account and access group), records every query, and can be told to
/// answer one call with a given status instead.
private final class ScriptedKeychain: KeychainItemCalls, @unchecked Sendable {
    // Sound: every access to the mutable state goes through `lock`.
    private let lock = NSLock()
    private var items: [String: KeychainQuery] = [:]
    private var scripted: [KeychainOperation: [KeychainStatus]] = [:]
    private(set) var calls: [(operation: KeychainOperation, query: KeychainQuery, changes: KeychainQuery?)] = []

    /// The next `operation` call answers `status` (in order, once each).
    func script(_ operation: KeychainOperation, _ statuses: KeychainStatus...) {
        lock.withLock { scripted[operation, default: []] += statuses }
    }

    var recorded: [(operation: KeychainOperation, query: KeychainQuery, changes: KeychainQuery?)] { lock.withLock { calls } }

    private func slot(_ query: KeychainQuery) -> String {
        "\(query[.service]?.description ?? "-")|\(query[.account]?.description ?? "-")|\(query[.accessGroup]?.description ?? "-")"
    }

    private func take(_ operation: KeychainOperation, _ query: KeychainQuery, _ changes: KeychainQuery? = nil) -> KeychainStatus? {
        calls.append((operation, query, changes))
        guard var queue = scripted[operation], !queue.isEmpty else { return nil }
        let status = queue.removeFirst()
        scripted[operation] = queue
        return status
    }

    func copyMatching(_ query: KeychainQuery) -> (status: KeychainStatus, data: Data?) {
        lock.withLock {
            if let status = take(.read, query) { return (status, nil) }
            guard let item = items[slot(query)] else { return (.itemNotFound, nil) }
            guard case .data(let data)? = item[.valueData] else { return (.success, nil) }
            return (.success, data)
        }
    }

    func add(_ attributes: KeychainQuery) -> KeychainStatus {
        lock.withLock {
            if let status = take(.add, attributes) { return status }
            if items[slot(attributes)] != nil { return .duplicateItem }
            items[slot(attributes)] = attributes
            return .success
        }
    }

    func update(_ query: KeychainQuery, changes: KeychainQuery) -> KeychainStatus {
        lock.withLock {
            if let status = take(.update, query, changes) { return status }
            guard let item = items[slot(query)] else { return .itemNotFound }
            items[slot(query)] = item.merging(changes)
            return .success
        }
    }

    func delete(_ query: KeychainQuery) -> KeychainStatus {
        lock.withLock {
            if let status = take(.delete, query) { return status }
            return items.removeValue(forKey: slot(query)) == nil ? .itemNotFound : .success
        }
    }

    func message(for status: KeychainStatus) -> String? { "message for \(status.rawValue)" }

    /// Puts raw bytes in a slot, as a damaged or foreign item would hold.
    func plant(_ data: Data, service: String, account: String) {
        lock.withLock {
            items["\"\(service)\"|\"\(account)\"|-"] = KeychainQuery([.service: .string(service), .account: .string(account), .valueData: .data(data)])
        }
    }
}

private let key = ChappieCredentialKey(service: "com.example.app", account: "user-7")

private func items(
    _ keychain: ScriptedKeychain, accessGroup: String? = nil, accessibility: ChappieKeychainAccessibility = .whenUnlockedThisDeviceOnly,
    usesDataProtectionKeychain: Bool = true, isMacOS: Bool = false
) -> KeychainCredentialItems {
    KeychainCredentialItems(accessGroup: accessGroup, accessibility: accessibility, usesDataProtectionKeychain: usesDataProtectionKeychain,
                            isMacOS: isMacOS, calls: keychain)
}

@Suite("Keychain store logic")
struct KeychainCredentialItemsTests {
    @Test("the item query is a non-synchronizable generic password for the key's service and account")
    func itemQuery() {
        // when
        let query = items(ScriptedKeychain()).itemQuery(for: key)
        // then
        #expect(query.named == [
            "kSecClass": .constant(.genericPassword),
            "kSecAttrService": .string("com.example.app"),
            "kSecAttrAccount": .string("user-7"),
            "kSecAttrSynchronizable": .bool(false),
        ])
    }

    @Test("an access group is part of every query; the data-protection keychain only on macOS and only when asked", arguments: [
        (true, true, true), (true, false, false), (false, true, false), (false, false, false),
    ])
    func accessGroupAndDataProtection(isMacOS: Bool, usesDataProtectionKeychain: Bool, expectsFlag: Bool) {
        // when
        let query = items(ScriptedKeychain(), accessGroup: "TEAMID.com.example.shared", usesDataProtectionKeychain: usesDataProtectionKeychain,
                          isMacOS: isMacOS).itemQuery(for: key)
        // then
        #expect(query.named["kSecAttrAccessGroup"] == .string("TEAMID.com.example.shared"))
        #expect(query.named["kSecUseDataProtectionKeychain"] == (expectsFlag ? .bool(true) : nil))
    }

    @Test("a read asks for the data of one item")
    func readQuery() {
        let query = items(ScriptedKeychain()).readQuery(for: key)
        #expect(query.named["kSecReturnData"] == .bool(true))
        #expect(query.named["kSecMatchLimit"] == .constant(.matchLimitOne))
        #expect(query.named.count == 6)
    }

    @Test("a save writes the data and the accessibility class, updating first and adding when missing", arguments: [
        (ChappieKeychainAccessibility.whenUnlockedThisDeviceOnly, "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"),
        (.afterFirstUnlockThisDeviceOnly, "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"),
    ])
    func saveAddsWithAccessibility(accessibility: ChappieKeychainAccessibility, constantName: String) throws {
        // given
        let keychain = ScriptedKeychain()
        let credential = ChappieAuthFixtures.credential()
        // when
        try items(keychain, accessibility: accessibility).save(credential, for: key)
        // then
        let calls = keychain.recorded
        #expect(calls.map(\.operation) == [.update, .add])
        let added = calls[1].query.named
        #expect(added["kSecAttrAccessible"]?.description == constantName)
        #expect(added["kSecClass"] == .constant(.genericPassword))
        #expect(added["kSecAttrSynchronizable"] == .bool(false))
        guard case .data(let data)? = added["kSecValueData"] else { Issue.record("no data added"); return }
        #expect(try JSONDecoder().decode(ChappieCredential.self, from: data) == credential)
        #expect(try items(keychain).load(for: key) == credential)
    }

    @Test("saving over an existing item updates its data and accessibility (a changed setting migrates it)")
    func saveUpdates() throws {
        // given
        let keychain = ScriptedKeychain()
        try items(keychain).save(ChappieAuthFixtures.credential(), for: key)
        let newer = ChappieAuthFixtures.credential(email: "newer@example.com")
        // when
        try items(keychain, accessibility: .afterFirstUnlockThisDeviceOnly).save(newer, for: key)
        // then
        let last = try #require(keychain.recorded.last)
        #expect(last.operation == .update)
        #expect(last.query == items(keychain).itemQuery(for: key))
        #expect(last.changes?.named["kSecAttrAccessible"] == .constant(.accessibleAfterFirstUnlockThisDeviceOnly))
        #expect(try items(keychain).load(for: key) == newer)
    }

    @Test("a save that races another writer (errSecDuplicateItem) updates again; a second race is an I/O error")
    func saveRace() throws {
        // given
        let keychain = ScriptedKeychain()
        keychain.script(.update, .itemNotFound, .success)
        keychain.script(.add, .duplicateItem)
        // when
        try items(keychain).save(ChappieAuthFixtures.credential(), for: key)
        // then
        #expect(keychain.recorded.map(\.operation) == [.update, .add, .update])

        // given
        let racing = ScriptedKeychain()
        racing.script(.update, .itemNotFound, .itemNotFound)
        racing.script(.add, .duplicateItem, .duplicateItem)
        // when, then
        #expect(throws: ChappieCredentialStoreError.io("Keychain save kept racing with another writer for \(key)")) {
            try items(racing).save(ChappieAuthFixtures.credential(), for: key)
        }
    }

    @Test("an empty slot reads as nil and deletes without error")
    func emptySlot() throws {
        let keychain = ScriptedKeychain()
        #expect(try items(keychain).load(for: key) == nil)
        try items(keychain).delete(for: key)
        #expect(keychain.recorded.map(\.operation) == [.read, .delete])
    }

    @Test("each failing status maps to the store error the caller acts on, for every operation", arguments: [
        (KeychainStatus.interactionNotAllowed, true),
        (.missingEntitlement, true),
        (.notAvailable, true),
        (.userCanceled, true),
        (.authFailed, true),
        (KeychainStatus(rawValue: -50), false),
        (KeychainStatus(rawValue: -26275), false),
    ])
    func statusMapping(status: KeychainStatus, unavailable: Bool) throws {
        for operation in KeychainOperation.allCases {
            // given
            let keychain = ScriptedKeychain()
            keychain.script(operation, status)
            if operation == .add { keychain.script(.update, .itemNotFound) }
            // when
            let error = #expect(throws: ChappieCredentialStoreError.self) {
                switch operation {
                case .read: _ = try items(keychain).load(for: key)
                case .add, .update: try items(keychain).save(ChappieAuthFixtures.credential(), for: key)
                case .delete: try items(keychain).delete(for: key)
                }
            }
            // then
            let message: String
            switch error {
            case .unavailable(let text)?: message = text; #expect(unavailable, "\(status) during \(operation)")
            case .io(let text)?: message = text; #expect(!unavailable, "\(status) during \(operation)")
            default: Issue.record("unexpected \(String(describing: error))"); continue
            }
            #expect(message.contains("Keychain \(operation.rawValue) failed with status \(status.rawValue) (message for \(status.rawValue))"))
        }
    }

    @Test("an item without data or with foreign data is corrupt, and the message names the slot only")
    func corruptItems() {
        let keychain = ScriptedKeychain()
        keychain.plant(Data("not json".utf8), service: key.service, account: key.account)
        #expect(throws: ChappieCredentialStoreError.corrupt("the Keychain item for \(key) is not a Chappie credential")) {
            try items(keychain).load(for: key)
        }
        let empty = ScriptedKeychain()
        empty.script(.read, .success)
        #expect(throws: ChappieCredentialStoreError.corrupt("the Keychain item for \(key) holds no data")) {
            try items(empty).load(for: key)
        }
    }

    @Test("a query holding the credential's data prints only its size, never a token")
    func queriesNeverPrintTokens() throws {
        // given
        let credential = ChappieAuthFixtures.credential()
        let keychain = ScriptedKeychain()
        try items(keychain).save(credential, for: key)
        let added = try #require(keychain.recorded.last?.query)
        // when
        var dumped = ""
        dump(added, to: &dumped)
        // then
        for text in [String(describing: added), String(reflecting: added), dumped] {
            for secret in [credential.accessTokenForTests, credential.idTokenForTests, credential.refreshTokenForTests!] {
                #expect(!text.contains(secret))
            }
            #expect(text.contains("bytes>"))
        }
    }

    @Test("every attribute and constant has the Security framework's name")
    func names() {
        #expect(KeychainAttribute.allCases.allSatisfy { $0.rawValue.hasPrefix("kSec") })
        #expect(KeychainConstant.allCases.allSatisfy { $0.rawValue.hasPrefix("kSec") })
        #expect(Set(KeychainAttribute.allCases.map(\.rawValue)).count == KeychainAttribute.allCases.count)
    }
}

import ChappieSDK
import Testing

// The code of the DocC article "Linux" (Sources/ChappieSDK/ChappieSDK.docc), compiled here;
// CatalogSnippetTests checks that each of the article's blocks appears here.

func linuxKeyringConfiguration() -> ChappieConfiguration {
    let configuration = ChappieConfiguration(credentialStore: ChappieSecretServiceCredentialStore())
    return configuration  // +test
}

func linuxKeyringOrFile() -> ChappieConfiguration {
    let keyring = ChappieSecretServiceCredentialStore()
    let store: any ChappieCredentialStore = keyring.isLibraryAvailable ? keyring : ChappieFileCredentialStore.shared
    return ChappieConfiguration(credentialStore: store)
}

@Suite("DocC articles: Linux")
struct LinuxSnippetTests {
    @Test("the keyring store is chosen only when asked for; the file store stays the default")
    func stores() {
        #expect(linuxKeyringConfiguration().credentialStore.identity.hasPrefix("secret-service:"))
        #if os(Linux)
        #expect(ChappieConfiguration().credentialStore.identity.hasPrefix("file:"))
        #endif
        let chosen = linuxKeyringOrFile().credentialStore.identity
        #expect(chosen.hasPrefix("secret-service:") || chosen.hasPrefix("file:"))
    }
}

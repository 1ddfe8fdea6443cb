import ChappieSDK
import Foundation
import Testing

@Suite("Home folder and per-app names")
struct UserHomeDirectoryTests {
    @Test("on Linux $HOME is the home folder (XDG rules); XDG_DATA_HOME wins when absolute, else $HOME/.local/share")
    func homeFromEnvironment() {
        #if os(Linux)
        #expect(UserHomeDirectory.url(environment: ["HOME": "/tmp/someone"]).path == "/tmp/someone")
        #expect(UserHomeDirectory.url(environment: ["HOME": "relative"]).path == FileManager.default.homeDirectoryForCurrentUser.path)
        #expect(UserHomeDirectory.dataHome(environment: ["HOME": "/tmp/someone"]).path == "/tmp/someone/.local/share")
        #expect(UserHomeDirectory.dataHome(environment: ["HOME": "/tmp/someone", "XDG_DATA_HOME": "/tmp/data"]).path == "/tmp/data")
        #expect(UserHomeDirectory.dataHome(environment: ["HOME": "/tmp/someone", "XDG_DATA_HOME": "data"]).path == "/tmp/someone/.local/share")
        #endif
    }

    @Test("an app's name comes from its bundle identifier, else its executable, reduced to safe characters")
    func appNames() {
        #expect(AppIdentity.name(bundleIdentifier: "com.example.notes", executableName: "Notes") == "com.example.notes")
        #expect(AppIdentity.name(bundleIdentifier: nil, executableName: "notes-cli") == "notes-cli")
        #expect(AppIdentity.name(bundleIdentifier: "", executableName: "../x y") == "x y".replacingOccurrences(of: " ", with: ""))
        #expect(AppIdentity.name(bundleIdentifier: nil, executableName: "///") == "app")
        #expect(ChappieConfiguration.defaultKeychainService == AppIdentity.name + ".chappie")
    }
}

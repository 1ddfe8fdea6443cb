import Foundation

extension ChappieConfiguration {
    /// The `keychainService` of a configuration that names none: `<app>.chappie`, where `<app>`
    /// is the main bundle's identifier (`com.example.notes.chappie`) or, for a command-line tool,
    /// its executable's name (`notes-cli.chappie`). So two apps, or an app and the `chappie`
    /// command-line tool, never share a credential slot unless they name the same service.
    public static var defaultKeychainService: String { AppIdentity.name + ".chappie" }
}

import ChappieTestSupport
import Foundation

/// Where the third-party clients live and whether they are installed. A missing client skips its
/// test locally, but fails it when the `CI` environment variable is set.
enum ClientAvailability {
    /// Runs ``python3`` (resolved through `/usr/bin/env` when it is a bare name).
    static let python = "/usr/bin/env"

    /// The Python interpreter the clients run in: `CHAPPIE_TEST_PYTHON` (scripts/test sets it),
    /// else the virtual environment scripts/test makes in `.build/python-venv` when it exists,
    /// else `python3` on the PATH.
    static let python3: String = {
        if let given = ProcessInfo.processInfo.environment["CHAPPIE_TEST_PYTHON"], !given.isEmpty { return given }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let venv = root.appendingPathComponent(".build/python-venv/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }()

    /// Whether the run is on CI (a missing client must then fail).
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// Whether `import openai` works.
    static let hasOpenAIPython: Bool = TestProcess.runSynchronously(python, [python3, "-c", "import openai"])?.succeeded == true

    /// Whether PyJWT with its crypto extra works (`import jwt` and an RSA algorithm).
    static let hasPyJWT: Bool = TestProcess.runSynchronously(python, [ClientAvailability.python3, "-c", "import jwt; jwt.get_algorithm_by_name('RS256')"])?.succeeded == true

    /// Whether `import websockets` works (the Python WebSocket client, pinned in requirements.txt).
    static let hasWebsocketsPython: Bool = TestProcess.runSynchronously(python, [python3, "-c", "import websockets.sync.client"])?.succeeded == true

    /// Debian's `chromium` (headless Chromium for the verification-page test).
    static let chromium = "/usr/bin/chromium"

    /// Debian's `chromium-driver`, passed to Selenium so Selenium Manager never downloads a driver.
    static let chromedriver = "/usr/bin/chromedriver"

    /// Whether Chromium, its driver and Selenium (PyPI, pinned in requirements.txt) are installed.
    static let hasBrowser: Bool =
        FileManager.default.isExecutableFile(atPath: chromium)
        && FileManager.default.isExecutableFile(atPath: chromedriver)
        && TestProcess.runSynchronously(python, [python3, "-c", "import selenium.webdriver"])?.succeeded == true

    /// The `chappie` binary built next to the test bundle (by `swift build --build-tests`), or
    /// nil when it is missing.
    static let chappieBinary: String? = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("chappie").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()

    /// The Codex CLI binary from `openai-codex-cli-bin`, or nil when not installed.
    static let codexBinary: String? = {
        let script = "import codex_cli_bin, os; print(os.path.join(os.path.dirname(codex_cli_bin.__file__), 'bin', 'codex'))"
        guard let probe = TestProcess.runSynchronously(python, [python3, "-c", script]), probe.succeeded,
            case let path = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            FileManager.default.isExecutableFile(atPath: path)
        else { return nil }
        return path
    }()

    /// The `Clients` folder with the Python scripts.
    static var clientsDirectory: URL {
        Bundle.module.url(forResource: "Clients", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Clients")
    }

    /// Whether a test that needs a client should run: yes when installed, and also on CI (where the
    /// test then fails on the missing client instead of being skipped).
    static func shouldRun(installed: Bool) -> Bool { installed || isCI }
}

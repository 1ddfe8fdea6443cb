import Foundation

/// Uses the desktop's own tools where they exist: `qrencode` to draw a QR code, `wl-copy` or
/// `xclip` for the clipboard, `xdg-open` (or macOS `open`) for the browser. Each returns whether
/// it worked, so the caller can say so when it did not.
enum DesktopIntegration {
    /// A QR code of `text` drawn with Unicode half blocks by `qrencode -t UTF8`, or nil when the
    /// tool is missing.
    static func qrCode(_ text: String) -> String? {
        guard let output = run("qrencode", ["-t", "UTF8", "-m", "2", text]), !output.isEmpty else { return nil }
        return output
    }

    /// Copies `text` to the clipboard; false when no clipboard tool or display is available.
    static func copyToClipboard(_ text: String) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["WAYLAND_DISPLAY"] != nil, run("wl-copy", [text]) != nil { return true }
        if environment["DISPLAY"] != nil, run("xclip", ["-selection", "clipboard"], input: text) != nil { return true }
        #if os(macOS)
        return run("pbcopy", [], input: text) != nil
        #else
        return false
        #endif
    }

    /// Opens `url` in the browser; false without a display or an opener.
    static func openInBrowser(_ url: URL) -> Bool {
        #if os(macOS)
        return run("open", [url.absoluteString]) != nil
        #else
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return false }
        return run("xdg-open", [url.absoluteString]) != nil
        #endif
    }

    /// Runs `tool` found on `PATH` with `arguments`; returns its standard output, or nil when it
    /// is missing or fails.
    private static func run(_ tool: String, _ arguments: [String], input: String? = nil) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = stdin
        do { try process.run() } catch { return nil }
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}

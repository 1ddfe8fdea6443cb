/// The ERROR lines of a Codex CLI's standard error that speak of the emulator.
///
/// Left out: Codex's own local-file races. Codex 0.163.0 rewrites `models_cache.json` in place
/// (truncate, then write) while another of its tasks may read it, and that reader then logs
/// "failed to load models cache: EOF while parsing a value at line 1 column 0" (seen once in a
/// full run). It fetches the catalog again, so nothing is lost, and it is no answer of the
/// emulator's.
func codexErrorLines(_ stderr: String) -> [Substring] {
    stderr.split(separator: "\n").filter { $0.contains(" ERROR ") && !$0.contains("failed to load models cache") }
}

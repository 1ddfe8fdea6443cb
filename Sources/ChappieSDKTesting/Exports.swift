// An app test imports only ChappieSDKTesting and still scripts the emulator: the emulator's
// public API (ChappieEmulator, ScriptedReply, Configuration, the device-flow controls) comes along,
// also where MemberImportVisibility is on.
@_exported import ChappieEmulator

//! Persona and subagent instruction files (YAML-subset frontmatter and body header): never a
//! panic; a subagent that qualifies declares `AGENT_TYPE` as the integer 2 somewhere in its text.
#![no_main]

use agentwarden_domain::governance::{FileRead, PersonaReading, frontmatter::parse_instruction_file, read_agent, read_persona};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = parse_instruction_file(text);
    let file = FileRead::Text(text.to_owned());
    let agent = read_agent(&file);
    if agent.verdict.passed() {
        assert!(text.contains("AGENT_TYPE"), "qualified without AGENT_TYPE: {text:?}");
        assert!(text.contains('2'));
    }
    if let PersonaReading::Valid(persona) = read_persona("P", Some(&file)) {
        assert!(!persona.declared.is_empty());
        assert!(text.contains("subagents"));
    }
});

//! A candidate subagent's declaration: `AGENT_TYPE` and `AGENT_CLASS`, from the frontmatter
//! and/or the body header (G-3).
//!
//! `AGENT_TYPE` must be the integer 2: a plain `2`, not `"2"`, `2.0`, `02` or `3`. A key
//! declared in both places with different values is ambiguous, and the candidate is denied.
//! `AGENT_CLASS` other than `TASK`, or missing, is a warning only (G-8).

use super::frontmatter::{InstructionFile, Scalar, ScalarStyle, Value, parse_instruction_file};
use super::inputs::FileRead;
use super::names::show;
use super::report::{Code, Verdict};

/// A subagent file's verdict: may it be delegated (as far as the file goes), and warnings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentReading {
    /// Eligible, or the reason it is not.
    pub verdict: Verdict,
    /// Non-blocking findings.
    pub warnings: Vec<String>,
}

/// The value of `key`, from the frontmatter and/or the header; `Err` when both declare it
/// differently.
fn declared<'a>(file: &'a InstructionFile, key: &str) -> Result<Option<&'a Value>, (String, String)> {
    let front = file.frontmatter.as_ref().and_then(|m| m.get(key));
    let header = file.header.get(key);
    match (front, header) {
        (Some(a), Some(b)) if a != b => Err((render(a), render(b))),
        (Some(v), _) | (None, Some(v)) => Ok(Some(v)),
        (None, None) => Ok(None),
    }
}

fn render_scalar(s: &Scalar) -> String {
    match s.style {
        ScalarStyle::Plain => show(&s.text),
        ScalarStyle::SingleQuoted => format!("the quoted string {}", show(&format!("'{}'", s.text))),
        ScalarStyle::DoubleQuoted => format!("the quoted string {}", show(&format!("\"{}\"", s.text))),
    }
}

fn render(value: &Value) -> String {
    match value {
        Value::Scalar(s) => render_scalar(s),
        Value::List(items) => format!("a list of {} item(s)", items.len()),
    }
}

/// Reads a candidate's instruction file.
pub fn read_agent(file: &FileRead) -> AgentReading {
    let fail =
        |code, reason: String| AgentReading { verdict: Verdict::fail(code, reason), warnings: Vec::new() };
    let text = match file {
        FileRead::Missing => {
            return fail(Code::AgentNotRegistered, "no instruction file: not registered".into());
        }
        FileRead::Unreadable(why) => {
            return fail(Code::AgentUnreadable, format!("instruction file unreadable: {why}"));
        }
        FileRead::Text(text) => text,
    };
    let parsed = match parse_instruction_file(text) {
        Ok(parsed) => parsed,
        Err(e) => return fail(Code::AgentInvalid, format!("instruction file: {e} ({})", e.code())),
    };
    let agent_type = match declared(&parsed, "AGENT_TYPE") {
        Err((front, header)) => {
            return fail(
                Code::AgentTypeConflict,
                format!("AGENT_TYPE is {front} in the frontmatter but {header} in the body header"),
            );
        }
        Ok(None) => return fail(Code::AgentTypeMissing, "AGENT_TYPE not declared, expected 2".into()),
        Ok(Some(value)) => value,
    };
    match agent_type {
        Value::Scalar(Scalar { text, style: ScalarStyle::Plain }) if text == "2" => {}
        other => {
            return fail(
                Code::AgentTypeNot2,
                format!("AGENT_TYPE is {}, expected the integer 2", render(other)),
            );
        }
    }
    let mut warnings = Vec::new();
    match declared(&parsed, "AGENT_CLASS") {
        Err((front, header)) => {
            return fail(
                Code::AgentClassConflict,
                format!("AGENT_CLASS is {front} in the frontmatter but {header} in the body header"),
            );
        }
        Ok(None) => warnings.push("AGENT_CLASS not declared (TASK expected)".into()),
        Ok(Some(Value::Scalar(Scalar { text, .. }))) if text == "TASK" => {}
        Ok(Some(other)) => warnings.push(format!("AGENT_CLASS is {}, TASK expected", render(other))),
    }
    AgentReading { verdict: Verdict::pass("AGENT_TYPE is 2"), warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> AgentReading {
        read_agent(&FileRead::Text(text.to_owned()))
    }

    #[test]
    fn agent_type_2_from_either_place_is_eligible() {
        for text in [
            "---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n# Body\n",
            "AGENT_TYPE: 2\nAGENT_CLASS: TASK\n\n# Body\n",
            "---\nname: prep\n---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n",
            "---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\nAGENT_TYPE: 2\n",
        ] {
            let reading = read(text);
            assert!(reading.verdict.passed(), "{text:?}: {reading:?}");
            assert!(reading.warnings.is_empty(), "{text:?}: {reading:?}");
        }
    }

    #[test]
    fn anything_but_a_plain_2_is_refused() {
        let cases = [
            ("---\nAGENT_TYPE: \"2\"\n---\n", "agent_type_not_2"),
            ("---\nAGENT_TYPE: '2'\n---\n", "agent_type_not_2"),
            ("---\nAGENT_TYPE: 2.0\n---\n", "agent_type_not_2"),
            ("---\nAGENT_TYPE: 02\n---\n", "agent_type_not_2"),
            ("---\nAGENT_TYPE: 3\n---\n", "agent_type_not_2"),
            ("---\nAGENT_TYPE: [2]\n---\n", "agent_type_not_2"),
            ("AGENT_TYPE: \"2\"\n", "agent_type_not_2"),
            ("---\nname: x\n---\n", "agent_type_missing"),
            ("---\nAGENT_TYPE: 2\n---\nAGENT_TYPE: 1\n", "agent_type_conflict"),
            ("---\nAGENT_TYPE: 2\n---\nAGENT_TYPE: \"2\"\n", "agent_type_conflict"),
            ("---\nAGENT_TYPE: 2\nAGENT_TYPE: 2\n---\n", "agent_invalid"),
            ("---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\nAGENT_CLASS: CHAT\n", "agent_class_conflict"),
        ];
        for (text, want) in cases {
            assert_eq!(read(text).verdict.code().map(|c| c.as_str()), Some(want), "{text:?}");
        }
        assert_eq!(
            read_agent(&FileRead::Missing).verdict.code().map(|c| c.as_str()),
            Some("agent_not_registered")
        );
    }

    #[test]
    fn agent_class_is_a_warning_only() {
        let missing = read("---\nAGENT_TYPE: 2\n---\n");
        assert!(missing.verdict.passed());
        assert_eq!(missing.warnings, ["AGENT_CLASS not declared (TASK expected)"]);
        let other = read("---\nAGENT_TYPE: 2\nAGENT_CLASS: CHAT\n---\n");
        assert!(other.verdict.passed());
        assert_eq!(other.warnings, ["AGENT_CLASS is `CHAT`, TASK expected"]);
    }
}

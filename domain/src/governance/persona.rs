//! The persona allowlist: which subagents a persona declares in its frontmatter.
//!
//! `subagents:` may be a block list, an inline list, or a comma-separated string; each entry
//! must be a plain [`Name`]. A number, boolean, null, an empty list, a persona file that is
//! missing, unreadable, without frontmatter or malformed: the gate fails, with the reason.

use super::frontmatter::{Scalar, ScalarStyle, Value, parse_instruction_file};
use super::inputs::FileRead;
use super::names::{Name, show};
use super::report::{Code, Verdict};

/// A persona whose file declared at least one subagent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Persona {
    /// Its name.
    pub name: Name,
    /// The subagents it declares, in file order, without duplicates.
    pub declared: Vec<Name>,
}

/// The persona gate's view of a persona: valid, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PersonaReading {
    /// It declares subagents.
    Valid(Persona),
    /// It cannot delegate: the verdict says why.
    Invalid(Verdict),
}

/// Reads a persona. `file` is `None` when the name was not valid and nothing was read.
pub fn read_persona(raw_name: &str, file: Option<&FileRead>) -> PersonaReading {
    let name = match Name::new(raw_name) {
        Ok(name) => name,
        Err(e) => {
            return PersonaReading::Invalid(Verdict::fail(Code::NameNotIdentifier, format!("persona {e}")));
        }
    };
    let invalid = |code, reason: String| PersonaReading::Invalid(Verdict::fail(code, reason));
    let text = match file {
        None | Some(FileRead::Missing) => {
            return invalid(Code::PersonaMissing, format!("persona {name} has no instruction file"));
        }
        Some(FileRead::Unreadable(why)) => {
            return invalid(Code::PersonaUnreadable, format!("persona {name}'s instruction file: {why}"));
        }
        Some(FileRead::Text(text)) => text,
    };
    let parsed = match parse_instruction_file(text) {
        Ok(parsed) => parsed,
        Err(e) => {
            return invalid(
                Code::PersonaInvalid,
                format!("persona {name}'s instruction file: {e} ({})", e.code()),
            );
        }
    };
    let Some(frontmatter) = parsed.frontmatter else {
        return invalid(
            Code::PersonaNoFrontmatter,
            format!("persona {name}'s instruction file has no frontmatter"),
        );
    };
    let entries = match frontmatter.get("subagents") {
        None => return invalid(Code::PersonaNoSubagents, format!("persona {name} declares no subagents")),
        Some(Value::List(items)) => items.iter().map(|s| s.text.trim()).collect::<Vec<_>>(),
        Some(Value::Scalar(scalar)) => match comma_list(scalar) {
            Ok(entries) => entries,
            Err(seen) => {
                return invalid(
                    Code::SubagentsNotList,
                    format!("persona {name}'s subagents is {seen}, expected a list of names"),
                );
            }
        },
    };
    let mut declared: Vec<Name> = Vec::with_capacity(entries.len());
    for entry in entries {
        match Name::new(entry) {
            Ok(sub) if !declared.contains(&sub) => declared.push(sub),
            Ok(_) => {}
            Err(e) => {
                return invalid(Code::SubagentsInvalid, format!("persona {name} declares subagent {e}"));
            }
        }
    }
    if declared.is_empty() {
        return invalid(Code::PersonaNoSubagents, format!("persona {name} declares an empty subagents list"));
    }
    PersonaReading::Valid(Persona { name, declared })
}

/// A scalar `subagents` value as a comma-separated list. YAML would read a plain `5`, `true`,
/// `null`, `~` or nothing as a number, boolean or null, not a name: those are type errors.
fn comma_list(scalar: &Scalar) -> Result<Vec<&str>, String> {
    let text = scalar.text.trim();
    if scalar.style == ScalarStyle::Plain && is_yaml_non_string(text) {
        return Err(if text.is_empty() {
            "empty".into()
        } else {
            format!("the non-string value {}", show(text))
        });
    }
    Ok(text.split(',').map(str::trim).collect())
}

/// Plain YAML scalars that resolve to something other than a string (core schema).
fn is_yaml_non_string(text: &str) -> bool {
    const WORDS: [&str; 14] = [
        "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", ".inf", ".nan",
        ".NaN",
    ];
    // Every integer YAML resolves (decimal) parses as an f64 too.
    WORDS.contains(&text) || text.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> PersonaReading {
        read_persona("MANAGER", Some(&FileRead::Text(text.to_owned())))
    }

    fn declared(text: &str) -> Vec<String> {
        match read(text) {
            PersonaReading::Valid(p) => p.declared.iter().map(|n| n.to_string()).collect(),
            PersonaReading::Invalid(v) => panic!("{text:?}: {v:?}"),
        }
    }

    fn code(text: &str) -> String {
        match read(text) {
            PersonaReading::Invalid(v) => v.code().unwrap().to_string(),
            PersonaReading::Valid(p) => panic!("{text:?} should be invalid: {p:?}"),
        }
    }

    #[test]
    fn the_three_list_forms_declare_the_same_subagents() {
        let want = ["PREPARATION", "4_DOCUMENTS"];
        assert_eq!(declared("---\nsubagents:\n  - PREPARATION\n  - 4_DOCUMENTS\n---\n"), want);
        assert_eq!(declared("---\nsubagents: [PREPARATION, 4_DOCUMENTS]\n---\n"), want);
        assert_eq!(declared("---\nsubagents: PREPARATION, 4_DOCUMENTS\n---\n"), want);
        assert_eq!(declared("---\nsubagents: \"PREPARATION,4_DOCUMENTS\"\n---\n"), want);
        assert_eq!(declared("---\nsubagents: [PREPARATION, PREPARATION, 4_DOCUMENTS]\n---\n"), want);
    }

    #[test]
    fn unusable_personas_fail_with_their_code() {
        let cases = [
            ("no frontmatter at all\n", "persona_no_frontmatter"),
            ("---\nname: x\n---\n", "persona_no_subagents"),
            ("---\nsubagents: []\n---\n", "persona_no_subagents"),
            ("---\nsubagents: 5\n---\n", "subagents_not_list"),
            ("---\nsubagents: true\n---\n", "subagents_not_list"),
            ("---\nsubagents: 1.5\n---\n", "subagents_not_list"),
            ("---\nsubagents: -7\n---\n", "subagents_not_list"),
            ("---\nsubagents: .inf\n---\n", "subagents_not_list"),
            ("---\nsubagents:\n---\n", "subagents_not_list"),
            ("---\nsubagents: [../x]\n---\n", "subagents_invalid"),
            ("---\nsubagents: A,,B\n---\n", "subagents_invalid"),
            ("---\nsubagents: [A]\n", "persona_invalid"),
        ];
        for (text, want) in cases {
            assert_eq!(code(text), want, "{text:?}");
        }
    }

    #[test]
    fn missing_unreadable_and_path_like_personas_fail() {
        let verdict = |r: PersonaReading| match r {
            PersonaReading::Invalid(v) => v.code().unwrap().to_string(),
            PersonaReading::Valid(_) => "valid".to_owned(),
        };
        assert_eq!(verdict(read_persona("M", Some(&FileRead::Missing))), "persona_missing");
        assert_eq!(verdict(read_persona("M", None)), "persona_missing");
        assert_eq!(
            verdict(read_persona("M", Some(&FileRead::Unreadable("denied".into())))),
            "persona_unreadable"
        );
        assert_eq!(verdict(read_persona("../M", None)), "name_not_identifier");
    }
}

//! Tables for the frontmatter subset and the body header, and never-panic properties.

use proptest::prelude::*;

use super::*;

fn plain(text: &str) -> Scalar {
    Scalar { text: text.to_owned(), style: ScalarStyle::Plain }
}

fn front(text: &str) -> Mapping {
    parse_instruction_file(text).unwrap().frontmatter.unwrap()
}

fn list(items: &[&str]) -> Value {
    Value::List(items.iter().map(|i| plain(i)).collect())
}

#[test]
fn lists_in_all_their_forms() {
    let block = front("---\nsubagents:\n  - PREPARATION\n  - 4_DOCUMENTS\n---\n");
    assert_eq!(block.get("subagents"), Some(&list(&["PREPARATION", "4_DOCUMENTS"])));
    let unindented = front("---\nsubagents:\n- A\n- B\nname: x\n---\n");
    assert_eq!(unindented.get("subagents"), Some(&list(&["A", "B"])));
    assert_eq!(unindented.get("name"), Some(&Value::Scalar(plain("x"))));
    let inline = front("---\nsubagents: [PREPARATION, \"4_DOCUMENTS\", 'X',]\n---\n");
    assert_eq!(
        inline.get("subagents"),
        Some(&Value::List(vec![
            plain("PREPARATION"),
            Scalar { text: "4_DOCUMENTS".into(), style: ScalarStyle::DoubleQuoted },
            Scalar { text: "X".into(), style: ScalarStyle::SingleQuoted },
        ]))
    );
    assert_eq!(front("---\nsubagents: []\n---\n").get("subagents"), Some(&Value::List(vec![])));
    let comma = front("---\nsubagents: A, B\n---\n");
    assert_eq!(comma.get("subagents"), Some(&Value::Scalar(plain("A, B"))), "splitting is the caller's job");
    assert_eq!(front("---\nsubagents:\n---\n").get("subagents"), Some(&Value::Scalar(plain(""))));
}

#[test]
fn scalars_keep_how_they_were_written() {
    let m = front("---\na: 2\nb: \"2\"\nc: '2'\nd: 2.0\ne: 02\nf: \"x\\\"y\\u0041\"\ng: 'it''s'\n---\n");
    let get = |k: &str| match m.get(k) {
        Some(Value::Scalar(s)) => (s.text.clone(), s.style),
        other => panic!("{k}: {other:?}"),
    };
    assert_eq!(get("a"), ("2".into(), ScalarStyle::Plain));
    assert_eq!(get("b"), ("2".into(), ScalarStyle::DoubleQuoted));
    assert_eq!(get("c"), ("2".into(), ScalarStyle::SingleQuoted));
    assert_eq!(get("d"), ("2.0".into(), ScalarStyle::Plain));
    assert_eq!(get("e"), ("02".into(), ScalarStyle::Plain));
    assert_eq!(get("f"), ("x\"yA".into(), ScalarStyle::DoubleQuoted));
    assert_eq!(get("g"), ("it's".into(), ScalarStyle::SingleQuoted));
    assert_eq!(m.line_of("e"), Some(6));
}

#[test]
fn legitimate_variants_parse_like_the_plain_file() {
    let plain_file =
        "---\nname: prep\nsubagents:\n  - A\n  - B\nAGENT_TYPE: 2\n---\nAGENT_CLASS: TASK\n\n# Body\n";
    let want = parse_instruction_file(plain_file).unwrap();
    let variants = [
        plain_file.replace('\n', "\r\n"),
        format!("\u{feff}{plain_file}"),
        plain_file.replace('\n', "  \t\n"),
        "---\n# a comment\nname: prep # trailing\nsubagents: # the list\n  - A # first\n\n  - B\nAGENT_TYPE: 2\n---\nAGENT_CLASS: TASK\n\n# Body\n"
            .to_owned(),
    ];
    for variant in variants {
        assert_eq!(parse_instruction_file(&variant).unwrap(), want, "{variant:?}");
    }
}

#[test]
fn errors_name_their_code_and_line() {
    let cases: &[(&str, &str, usize)] = &[
        ("---\na: 1\n", "frontmatter_unterminated", 1),
        ("hello\n---\na: 1\n---\n", "text_before_frontmatter", 2),
        ("---\na: 1\n---\n\n---\nb: 2\n---\n", "second_frontmatter", 5),
        ("---\na: 1\nb: 2\na: 3\n---\n", "duplicate_key", 4),
        ("---\na:\n  b: 1\n---\n", "unsupported_yaml", 3),
        ("---\na: {b: 1}\n---\n", "unsupported_yaml", 2),
        ("---\na: &x 1\n---\n", "unsupported_yaml", 2),
        ("---\na: *x\n---\n", "unsupported_yaml", 2),
        ("---\na: !!int 2\n---\n", "unsupported_yaml", 2),
        ("---\na: |\n  text\n---\n", "unsupported_yaml", 2),
        ("---\na: one\n  two\n---\n", "unsupported_yaml", 3),
        ("---\n\ta: 1\n---\n", "unsupported_yaml", 2),
        ("---\n- a\n---\n", "unsupported_yaml", 2),
        ("---\na: [b, [c]]\n---\n", "unsupported_yaml", 2),
        ("---\na: b: c\n---\n", "unsupported_yaml", 2),
        ("---\na: \"open\n---\n", "unterminated_quote", 2),
        ("---\na: \"bad \\q escape\"\n---\n", "unterminated_quote", 2),
        ("---\njust text\n---\n", "invalid_line", 2),
        ("---\na: \"x\" y\n---\n", "invalid_line", 2),
        ("---\na: [b, , c]\n---\n", "invalid_line", 2),
        ("---\na: [b\n---\n", "invalid_line", 2),
        ("---\nkey:value\n---\n", "invalid_line", 2),
        ("---\n---\nA: 1\nA: 2\n", "duplicate_key", 4),
    ];
    for (text, code, line) in cases {
        let err = parse_instruction_file(text).unwrap_err();
        assert_eq!(err.code(), *code, "{text:?}: {err}");
        assert!(err.to_string().starts_with(&format!("line {line}:")), "{text:?}: {err}");
    }
}

#[test]
fn the_body_header_is_the_leading_key_value_run() {
    let file =
        parse_instruction_file("---\nname: x\n---\n\nAGENT_TYPE: 2\nAGENT_CLASS: \"TASK\"\n\nLATER: 1\n")
            .unwrap();
    assert_eq!(file.header.get("AGENT_TYPE"), Some(&Value::Scalar(plain("2"))));
    assert_eq!(
        file.header.get("AGENT_CLASS"),
        Some(&Value::Scalar(Scalar { text: "TASK".into(), style: ScalarStyle::DoubleQuoted }))
    );
    assert_eq!(file.header.get("LATER"), None, "the header ends at the first blank line");
    let heading = parse_instruction_file("AGENT_TYPE: 2\n# Title\nAGENT_CLASS: TASK\n").unwrap();
    assert_eq!(heading.frontmatter, None);
    assert_eq!(heading.header.len(), 1, "the header ends at a heading");
    let prose = parse_instruction_file("Some prose first.\nAGENT_TYPE: 2\n").unwrap();
    assert!(prose.header.is_empty(), "the header must come first");
}

#[test]
fn edge_files() {
    assert_eq!(parse_instruction_file("").unwrap(), InstructionFile::default());
    let empty = parse_instruction_file("---\n---\n").unwrap();
    assert_eq!(empty.frontmatter, Some(Mapping::default()));
    let dots = parse_instruction_file("---\na: 1\n...\nbody\n").unwrap();
    assert_eq!(dots.frontmatter.unwrap().len(), 1);
    // A markdown rule in a body without frontmatter is fine when no mapping follows it.
    assert!(parse_instruction_file("# Title\n\n---\n\nText.\n").is_ok());
}

proptest! {
    #[test]
    fn never_panics_on_any_text(text in "\\PC{0,300}") {
        let _ = parse_instruction_file(&text);
    }

    #[test]
    fn never_panics_on_mutated_files(
        at in any::<prop::sample::Index>(),
        insert in "[-:\\[\\]{}'\"#&*!|> \\n\\t\\\\a2]{0,6}",
    ) {
        let base = "---\nname: prep\nsubagents:\n  - A\n  - 'B'\nlist: [x, \"y\"]\n---\nAGENT_TYPE: 2\n\n# Body\n";
        let mut at = at.index(base.len() + 1);
        while !base.is_char_boundary(at) { at -= 1; }
        let text = format!("{}{}{}", &base[..at], insert, &base[at..]);
        let _ = parse_instruction_file(&text);
    }
}

#[test]
fn mappings_compare_by_keys_and_values_and_list_them_in_file_order() {
    let a = front("---\nname: x\nsubagents: [A]\n---\n");
    let moved = front("---\n\nname: x\n\nsubagents: [A]\n---\n");
    assert_eq!(a, moved, "the same keys and values, at other lines");
    assert_ne!(a, front("---\nname: y\nsubagents: [A]\n---\n"));
    assert_ne!(a, front("---\nname: x\n---\n"));
    let keys: Vec<&str> = a.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["name", "subagents"]);
    assert_eq!((a.len(), a.is_empty()), (2, false));
    let empty = front("---\n---\n");
    assert_eq!((empty.len(), empty.is_empty()), (0, true));
    assert_eq!(plain("PREPARATION").to_string(), "PREPARATION");
}

#[test]
fn keys_start_with_a_letter_or_an_underscore() {
    let mapping = front("---\n_private: 1\nname: x\n---\n");
    assert_eq!(mapping.get("_private"), Some(&Value::Scalar(plain("1"))));
    assert!(parse_instruction_file("---\n1st: x\n---\n").is_err(), "a key cannot start with a digit");
    assert!(parse_instruction_file("---\n-x: y\n---\n").is_err());
}

#[test]
fn what_the_subset_refuses_inside_lists_and_values() {
    let refused = [
        "---\nsubagents:\n  - - A\n---\n",
        "---\nsubagents:\n  - -\n---\n",
        "---\nsubagents:\n  - [A]\n---\n",
        "---\nsubagents:\n  - key: v\n---\n",
        "---\nsubagents:\n  - A\n  nested: x\n---\n",
        "---\nsubagents:\n  - &a A\n---\n",
        "---\nsubagents:\n  - *a\n---\n",
        "---\nsubagents:\n  - !tag A\n---\n",
        "---\nsubagents:\n  - {a}\n---\n",
        "---\nname: %x\n---\n",
        "---\nname: @x\n---\n",
        "---\nname: `x`\n---\n",
    ];
    for text in refused {
        let err = parse_instruction_file(text).unwrap_err();
        assert_eq!(err.code(), "unsupported_yaml", "{text:?}: {err}");
    }
}

#[test]
fn a_list_ends_where_the_next_key_begins() {
    let mapping = front("---\nsubagents:\n  - A\n\n  # the end of the list\nname: x\n---\n");
    assert_eq!(mapping.get("subagents"), Some(&list(&["A"])));
    assert_eq!(mapping.get("name"), Some(&Value::Scalar(plain("x"))));
    assert_eq!(mapping.line_of("name"), Some(6));
}

#[test]
fn double_quoted_escapes() {
    let mapping = front("---\nname: \"a\\\\b\\/c\\nd\\te\\rf\\\"g\\u00e9\"\n---\n");
    let Some(Value::Scalar(name)) = mapping.get("name") else { panic!("not a scalar") };
    assert_eq!(name.text, "a\\b/c\nd\te\rf\"gé");
    assert!(parse_instruction_file("---\nname: \"\\q\"\n---\n").is_err(), "an unknown escape");
}

#[test]
fn header_keys_may_start_with_an_underscore_not_a_digit() {
    let file = parse_instruction_file("_KIND: x\nAGENT_TYPE: 2\n").unwrap();
    assert_eq!(file.header.get("_KIND"), Some(&Value::Scalar(plain("x"))));
    assert_eq!(file.header.get("AGENT_TYPE"), Some(&Value::Scalar(plain("2"))));
    let stopped = parse_instruction_file("1KIND: x\nAGENT_TYPE: 2\n").unwrap();
    assert!(stopped.header.is_empty(), "the header ends at the first line that is not `KEY: VALUE`");
}

//! What the application knows of Gemini CLI agrees with the integration.

/// The variable the application refuses the human verbs under is the one Gemini sets.
#[test]
fn the_application_knows_the_variable_gemini_sets() {
    assert_eq!(agentwarden::human::GEMINI_ENV, crate::wire::GEMINI_ENV);
}

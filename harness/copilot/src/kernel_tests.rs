//! What the application knows of Copilot CLI agrees with the integration.

/// The variable the application refuses the human verbs under is the one Copilot sets.
#[test]
fn the_application_knows_the_variable_copilot_sets() {
    assert_eq!(agentwarden::human::COPILOT_ENV, crate::wire::COPILOT_ENV);
}

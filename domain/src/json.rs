//! Strict JSON: duplicate keys are an error, not a silent last-one-wins (G-5).

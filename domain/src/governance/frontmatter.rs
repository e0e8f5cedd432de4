//! Instruction files: YAML frontmatter (a strict subset) and the body header (G-3).

//! Characters that show nothing: Unicode's `Default_Ignorable_Code_Point` set (Unicode 15.1,
//! `DerivedCoreProperties.txt`), as a small table.
//!
//! G-24: a reference made only of whitespace and these characters (a zero-width space, a word
//! joiner, a byte-order mark, a soft hyphen, variation selectors, bidi controls …) looks empty
//! to a human reading a log or a prompt, so it counts as empty.

/// The `Default_Ignorable_Code_Point` ranges, inclusive, sorted.
const DEFAULT_IGNORABLE: [(u32, u32); 23] = [
    (0x00AD, 0x00AD),   // soft hyphen
    (0x034F, 0x034F),   // combining grapheme joiner
    (0x061C, 0x061C),   // Arabic letter mark
    (0x115F, 0x1160),   // Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),   // Khmer inherent vowels
    (0x180B, 0x180F),   // Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),   // zero-width space, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),   // bidi embeddings and overrides
    (0x2060, 0x206F),   // word joiner, invisible operators, bidi isolates, deprecated formats
    (0x3164, 0x3164),   // Hangul filler
    (0xFE00, 0xFE0F),   // variation selectors
    (0xFEFF, 0xFEFF),   // zero-width no-break space (byte-order mark)
    (0xFFA0, 0xFFA0),   // halfwidth Hangul filler
    (0xFFF0, 0xFFF8),   // reserved
    (0x1BCA0, 0x1BCA3), // shorthand format controls
    (0x1D173, 0x1D17A), // musical symbol formatting
    (0xE0000, 0xE0000), // reserved
    (0xE0001, 0xE0001), // language tag
    (0xE0002, 0xE001F), // reserved
    (0xE0020, 0xE007F), // tag characters
    (0xE0080, 0xE00FF), // reserved
    (0xE0100, 0xE01EF), // variation selectors supplement
    (0xE01F0, 0xE0FFF), // reserved
];

/// Whether `c` is a `Default_Ignorable_Code_Point`: a character that renders as nothing.
pub fn is_default_ignorable(c: char) -> bool {
    let c = u32::from(c);
    DEFAULT_IGNORABLE.iter().any(|&(first, last)| (first..=last).contains(&c))
}

/// Whether `text` shows nothing: empty, or only whitespace and default-ignorable characters.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || is_default_ignorable(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_disjoint() {
        for pair in DEFAULT_IGNORABLE.windows(2) {
            if let [(a_first, a_last), (b_first, _)] = pair {
                assert!(a_first <= a_last && a_last < b_first, "{pair:x?}");
            }
        }
    }

    #[test]
    fn invisible_characters_are_blank_and_visible_ones_are_not() {
        let invisible = [
            '\u{00AD}',
            '\u{034F}',
            '\u{061C}',
            '\u{115F}',
            '\u{1160}',
            '\u{17B4}',
            '\u{180B}',
            '\u{180E}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{2064}',
            '\u{2066}',
            '\u{2069}',
            '\u{206F}',
            '\u{3164}',
            '\u{FE00}',
            '\u{FE0F}',
            '\u{FEFF}',
            '\u{FFA0}',
            '\u{1BCA0}',
            '\u{1D173}',
            '\u{E0001}',
            '\u{E0020}',
            '\u{E007F}',
            '\u{E0100}',
            '\u{E01EF}',
            '\u{E0FFF}',
        ];
        for c in invisible {
            assert!(is_default_ignorable(c), "U+{:04X}", u32::from(c));
            assert!(is_blank(&format!(" {c}\t{c}")), "U+{:04X}", u32::from(c));
        }
        for c in [
            'a',
            '0',
            '-',
            '\u{00AC}',
            '\u{00AE}',
            '\u{0350}',
            '\u{200A}',
            '\u{2010}',
            '\u{2070}',
            '\u{FE10}',
            '\u{FFFD}',
            '\u{E1000}',
            '\u{1F600}',
        ] {
            assert!(!is_default_ignorable(c), "U+{:04X}", u32::from(c));
        }
        assert!(is_blank("") && is_blank(" \u{3000}\u{2028}"));
        assert!(!is_blank("\u{200B}R\u{200B}"));
    }
}

//! The report's page: one HTML file with its style and script inline and the report's data as
//! JSON in a `<script type="application/json">` element. The script renders the data with DOM
//! calls that set text (never markup), so the one place a log value meets HTML is the JSON
//! block, and `embed_json` makes sure it cannot leave it.

use crate::model::Report;

const TEMPLATE: &str = include_str!("page.html");
const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Why the report's page could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The report's data did not serialise to JSON.
    #[error("the report cannot be serialised: {0}")]
    Serialise(#[source] serde_json::Error),
    /// The page template lacks a marker its content goes in.
    #[error("the page template has no `{marker}` marker")]
    NoMarker { marker: String },
}

/// The page for `report`; `Err` says why it could not be made.
pub(crate) fn render(report: &Report) -> Result<String, RenderError> {
    let json = serde_json::to_string(report).map_err(RenderError::Serialise)?;
    let data = embed_json(&json);
    let mut page = String::with_capacity(TEMPLATE.len() + STYLE.len() + SCRIPT.len() + data.len());
    let mut rest = TEMPLATE;
    for (marker, content) in [("<!--STYLE-->", STYLE), ("<!--DATA-->", &data), ("<!--SCRIPT-->", SCRIPT)] {
        let (before, after) =
            rest.split_once(marker).ok_or_else(|| RenderError::NoMarker { marker: marker.to_owned() })?;
        page.push_str(before);
        page.push_str(content);
        rest = after;
    }
    page.push_str(rest);
    Ok(page)
}

/// JSON text made safe inside a `<script>` element: `<`, `>` and `&` (so no `</script>` and no
/// `<!--` can appear) and U+2028/U+2029 (line terminators to older script parsers) become
/// `\uXXXX` escapes. Outside strings JSON has none of these characters, and inside a string the
/// escape is the same character: the parsed value is unchanged.
pub(crate) fn embed_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{embed_json, render};
    use crate::model::Report;

    /// (value, why): each survives as the same string, and the embedded text holds nothing a
    /// script element's parser or an HTML parser would act on.
    const HOSTILE: &[(&str, &str)] = &[
        ("</script><script>alert(1)</script>", "closes the data element"),
        ("</SCRIPT >", "the end tag is case-insensitive"),
        ("\"><img src=x onerror=alert(1)>", "an attribute break-out"),
        ("<!--", "opens a comment, which makes `</script>` inside it not end the element"),
        ("<!-- <script>", "the double-escaped state of a script element"),
        ("a\u{2028}b\u{2029}c", "line terminators to older script parsers"),
        ("&lt;b&gt; &amp;", "entities stay as typed"),
        ("\\u003c", "an escape typed literally"),
        ("é ✓ 🐛", "non-ASCII is kept"),
    ];

    #[test]
    fn hostile_values_round_trip_and_cannot_leave_the_data_element() {
        for (value, why) in HOSTILE {
            let json = serde_json::to_string(&serde_json::json!({ "v": value })).unwrap_or_default();
            let embedded = embed_json(&json);
            for forbidden in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
                assert!(!embedded.contains(forbidden), "{why}: `{forbidden}` in {embedded}");
            }
            let back: serde_json::Value = serde_json::from_str(&embedded).unwrap_or_default();
            assert_eq!(back["v"].as_str(), Some(*value), "{why}");
        }
    }

    #[test]
    fn the_page_has_one_data_element_and_no_marker_left() {
        let mut report = Report::default();
        report.window.session = Some("</script><!--".to_owned());
        let page = render(&report).unwrap_or_default();
        assert_eq!(page.matches("<script").count(), 2, "the data and the renderer");
        assert_eq!(page.matches("</script>").count(), 2);
        assert!(
            !page.contains("<!--STYLE-->")
                && !page.contains("<!--DATA-->")
                && !page.contains("<!--SCRIPT-->")
        );
        assert!(page.contains("\\u003c/script\\u003e\\u003c!--"), "the hostile session id, escaped");
        assert!(!page.contains("http://") && !page.contains("https://"), "nothing is fetched");
        assert!(
            !page.contains("innerHTML")
                && !page.contains("outerHTML")
                && !page.contains("insertAdjacentHTML")
        );
    }
}

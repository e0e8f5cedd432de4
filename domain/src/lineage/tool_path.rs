//! A path a tool call names, read lexically against the project root and the call's working
//! directory (T-5, T-13): the value the path rules are matched with. It names no tool and
//! reads no input, so the modules that build it (the call's readers) and the modules that
//! match it (the rules) both stand above it.

/// A path a tool call names, lexically normalised: its absolute segments, and its segments
/// relative to the project root and to the call's working directory when it is inside them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPath {
    pub(super) absolute: Vec<String>,
    pub(super) in_project: Option<Vec<String>>,
    /// From the working directory, where the harness reads a relative rule from (T-5).
    pub(super) in_cwd: Option<Vec<String>>,
}

impl ToolPath {
    /// `path` (absolute, or relative to `cwd`) against the project `root` (absolute). `None`
    /// when it cannot be read as a path: then no path rule grants the call (T-5).
    pub fn new(path: &str, cwd: &str, root: &str) -> Option<ToolPath> {
        ToolPath::under(path, cwd, cwd, root)
    }

    /// The path's segments from the project root, when it is inside the project.
    pub fn in_project(&self) -> Option<&[String]> {
        self.in_project.as_deref()
    }

    /// `path` (absolute, or relative to `base`: a search's root, for the paths its patterns
    /// name), for a call made in `cwd`: its segments from the call's working directory are
    /// from `cwd`, whatever `base` was (T-5, T-14).
    pub(super) fn under(path: &str, base: &str, cwd: &str, root: &str) -> Option<ToolPath> {
        let absolute = if path.starts_with('/') {
            normalise(path)?
        } else {
            let mut base = normalise(base)?;
            base.extend(normalise_relative(path)?);
            normalise(&format!("/{}", base.join("/")))?
        };
        let root = normalise(root)?;
        let in_project = absolute.strip_prefix(root.as_slice()).map(<[String]>::to_vec);
        let in_cwd =
            normalise(cwd).and_then(|cwd| absolute.strip_prefix(cwd.as_slice()).map(<[String]>::to_vec));
        Some(ToolPath { absolute, in_project, in_cwd })
    }
}

fn normalise_relative(path: &str) -> Option<Vec<String>> {
    if path.is_empty() || path.contains('\0') {
        return None;
    }
    Some(path.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect())
}

/// `..` resolved lexically; a path that climbs above `/` is refused.
fn normalise(path: &str) -> Option<Vec<String>> {
    if !path.starts_with('/') || path.contains('\0') {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            other => out.push(other.to_owned()),
        }
    }
    Some(out)
}

//! Where a path a tool call names lands (T-17, R-32): the places the rule scopes and the
//! protected paths judge, rather than the text the agent wrote.
//!
//! A writer hands its path to the kernel, which resolves it component by component and follows
//! a symbolic link before it applies a `..` that comes after it: with `src/l -> agents`,
//! `src/l/../x` is `agents/../x`, that is `x`, never `src/x`. A writer written in Node
//! first removes `..` as text (`path.resolve`), then hands the rest to the kernel. Warden cannot tell which one writes, so a path is placed both ways, each reading
//! resolved by the file system ([`ResolvePath`], which the application implements: the domain
//! reads no file), and judged at every place it may land: a rule scope grants it only when it
//! grants each, a protected path catches it when it holds any. A path that cannot be placed (a
//! loop, a component that cannot be read, a final link to nothing) is judged by nothing: the
//! caller denies it (`path_unresolvable`).
//!
//! What remains (T-17): the file system is read when the call is judged, and the writer opens the
//! path later; an agent that swaps a link in between writes where Warden did not look. Only
//! confinement of the writer closes that (the residual risks in `docs/threat-model.md`).

/// How the file system resolves a path: the application's side of [`places`].
/// Why a path cannot be placed where a write would land (T-17, T-18), by cause: what
/// was seen is a field, the message says it as the refusals always have. More causes may come
/// with another file system.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlaceError {
    /// Not absolute, or it holds a NUL.
    #[error("`{}` is not an absolute path", .path.escape_debug())]
    NotAbsolute {
        /// The path, as given.
        path: String,
    },
    /// A link of the process file system (`/proc/self/cwd`, `/dev/fd/N`), which names what its
    /// reader sees, not what the writer will.
    #[error(
        "`{link}` is a link of the process file system, which names what its reader sees, not what the writer will"
    )]
    ReaderDependent {
        /// The link.
        link: String,
    },
    /// More symbolic links than the kernel follows: a loop.
    #[error("more than {max} symbolic links (a loop) at `{at}`")]
    TooManyLinks {
        /// Where the count passed.
        at: String,
        /// The most links followed.
        max: usize,
    },
    /// A link that cannot be read.
    #[error("the link `{link}` cannot be read: {reason}")]
    LinkUnreadable {
        /// The link.
        link: String,
        /// The file system's reason.
        reason: String,
    },
    /// A component that cannot be looked up, for another reason than its absence.
    #[error("`{at}` cannot be looked up: {reason}")]
    LookupFailed {
        /// The component.
        at: String,
        /// The file system's reason.
        reason: String,
    },
    /// The final component is a symbolic link to nothing: a writer would create its target, or
    /// refuse.
    #[error("`{path}` ends in a symbolic link to nothing")]
    LinkToNothing {
        /// The path, as given.
        path: String,
    },
    /// The place is a name that is not UTF-8.
    #[error("`{path}` lands on a name that is not UTF-8")]
    NotUtf8 {
        /// The path, as given.
        path: String,
    },
    /// A relative path with no absolute working directory to place it under.
    #[error("`{}` is relative and the call gives no absolute working directory to place it", .path.escape_debug())]
    Relative {
        /// The path, as written in the call.
        path: String,
    },
    /// One of the path's readings cannot be placed.
    #[error("`{}` cannot be placed: {cause}", .path.escape_debug())]
    Unplaceable {
        /// The path, as written in the call.
        path: String,
        /// Why its reading cannot be placed.
        cause: Box<PlaceError>,
    },
}

pub trait ResolvePath {
    /// `path` (absolute, as written: `.`, `..` and symbolic links not yet applied) resolved as
    /// the kernel resolves it, component by component, a symbolic link followed before a `..`
    /// after it is applied: the absolute path it names, with no `.`, `..` or symbolic link in it
    /// (a tail that does not exist yet, names a writer would create, kept as written). `Err`
    /// says why it cannot be placed: too many links (a loop), a component that cannot be read,
    /// a final component that is a link to nothing.
    fn place(&self, path: &str) -> Result<String, PlaceError>;

    /// Whether `path` (absolute, as written) ends in a symbolic link: its parent placed as
    /// [`ResolvePath::place`] places it, its last name there a link, to something or to nothing.
    /// A last name that is `.` or `..`, or that does not exist, is not a link. `Err` says why it
    /// cannot be told (T-18).
    fn leaf_is_link(&self, path: &str) -> Result<bool, PlaceError>;
}

/// `path` (absolute) split into its parent and its last name; `None` when the last name is `.`,
/// `..` or nothing (the root, a trailing `/`): such a path names a directory, never a link.
pub fn parent_and_leaf(path: &str) -> Option<(&str, &str)> {
    let (parent, leaf) = path.rsplit_once('/')?;
    if leaf.is_empty() || leaf == "." || leaf == ".." {
        return None;
    }
    Some((if parent.is_empty() { "/" } else { parent }, leaf))
}

/// A file system with no symbolic links: `.` and `..` applied as text. For callers that judge a
/// path without a file system under it (a rule's tests, the fuzz targets, the benches).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoLinks;

impl ResolvePath for NoLinks {
    fn place(&self, path: &str) -> Result<String, PlaceError> {
        if !path.starts_with('/') || path.contains('\0') {
            return Err(PlaceError::NotAbsolute { path: path.to_owned() });
        }
        Ok(lexical(path))
    }

    fn leaf_is_link(&self, _path: &str) -> Result<bool, PlaceError> {
        Ok(false)
    }
}

/// `path` (absolute) with `.` and `..` applied as text, as Node's `path.resolve` does: a `..` at
/// `/` stays at `/`, repeated separators are one.
pub fn lexical(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `path` as written made absolute: itself when absolute, else under `cwd` (absolute), `.`,
/// `..` and links left for [`places`]; `None` when it is relative and there is no absolute
/// `cwd`, or it holds a NUL.
pub fn joined(path: &str, cwd: Option<&str>) -> Option<String> {
    if path.contains('\0') {
        return None;
    }
    if path.starts_with('/') {
        return Some(path.to_owned());
    }
    let cwd = cwd.filter(|c| c.starts_with('/') && !c.contains('\0'))?;
    Some(format!("{cwd}/{path}"))
}

/// Every place `path` (absolute, or relative to `cwd`) may be written (T-17): the kernel's
/// reading, and the reading of a writer that removes `..` as text first, each resolved by
/// `resolve`; one place when they agree. `Err` says why it cannot be placed: relative with no
/// absolute `cwd`, or either reading cannot be resolved.
pub fn places(resolve: &dyn ResolvePath, path: &str, cwd: Option<&str>) -> Result<Vec<String>, PlaceError> {
    let Some(joined) = joined(path, cwd) else {
        return Err(PlaceError::Relative { path: path.to_owned() });
    };
    let unplaceable = |cause| PlaceError::Unplaceable { path: path.to_owned(), cause: Box::new(cause) };
    let kernel = resolve.place(&joined).map_err(unplaceable)?;
    let text = resolve.place(&lexical(&joined)).map_err(unplaceable)?;
    Ok(if kernel == text { vec![kernel] } else { vec![kernel, text] })
}

/// A file system of directories and links: each link is a key, its target the value
/// (absolute, or relative to the link's directory); a target `!` is a link to nothing.
#[cfg(test)]
pub(crate) struct Links(pub(crate) std::collections::BTreeMap<&'static str, &'static str>);

#[cfg(test)]
impl ResolvePath for Links {
    fn place(&self, path: &str) -> Result<String, PlaceError> {
        let mut pending: Vec<String> = path.split('/').rev().map(str::to_owned).collect();
        let mut real: Vec<String> = Vec::new();
        let mut links = 0;
        while let Some(part) = pending.pop() {
            match part.as_str() {
                "" | "." => {}
                ".." => {
                    real.pop();
                }
                name => {
                    let here = format!(
                        "/{}",
                        real.iter().map(String::as_str).chain([name]).collect::<Vec<_>>().join("/")
                    );
                    match self.0.get(here.as_str()) {
                        None => real.push(name.to_owned()),
                        Some(&"!") if pending.is_empty() => {
                            return Err(PlaceError::LinkToNothing { path: path.to_owned() });
                        }
                        Some(target) => {
                            links += 1;
                            if links > 40 {
                                return Err(PlaceError::TooManyLinks { at: here, max: 40 });
                            }
                            if target.starts_with('/') {
                                real.clear();
                            }
                            pending.extend(target.split('/').rev().map(str::to_owned));
                        }
                    }
                }
            }
        }
        Ok(format!("/{}", real.join("/")))
    }

    fn leaf_is_link(&self, path: &str) -> Result<bool, PlaceError> {
        let Some((parent, leaf)) = parent_and_leaf(path) else { return Ok(false) };
        let parent = self.place(parent)?;
        let here = format!("{}/{leaf}", parent.trim_end_matches('/'));
        Ok(self.0.contains_key(here.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn a_path_is_placed_where_each_reader_lands() {
        let fs = Links(BTreeMap::from([
            ("/p/src/l", "../agents"),
            ("/p/src/up", ".."),
            ("/p/src/out", "/elsewhere"),
            ("/p/src/loop", "loop"),
            ("/p/src/none", "!"),
            ("/p/okrs/l", "/elsewhere/deep"),
        ]));
        /// Path, cwd, the places, why.
        type Row<'a> = (&'a str, Option<&'a str>, Result<Vec<&'a str>, ()>, &'a str);
        let rows: [Row<'_>; 11] = [
            ("src/a.md", Some("/p"), Ok(vec!["/p/src/a.md"]), "plain"),
            ("src/l/../x", Some("/p"), Ok(vec!["/p/x", "/p/src/x"]), "a link to a sibling, then `..`"),
            ("/p/src/up/x", None, Ok(vec!["/p/x"]), "a link to `..`"),
            ("src/out/x", Some("/p"), Ok(vec!["/elsewhere/x"]), "a link outside"),
            ("okrs/l/../q4.md", Some("/p"), Ok(vec!["/elsewhere/q4.md", "/p/okrs/q4.md"]), "`..` as text"),
            ("../../../../p/x", Some("/p/src"), Ok(vec!["/p/x"]), "`..` above `/` stays at `/`"),
            ("src/new/../b", Some("/p"), Ok(vec!["/p/src/b"]), "`..` after a name still to be made"),
            ("src/loop/x", Some("/p"), Err(()), "a loop"),
            ("src/none", Some("/p"), Err(()), "a final link to nothing"),
            ("src/a.md", None, Err(()), "relative with no cwd"),
            ("src/a.md", Some("rel"), Err(()), "relative to a relative cwd"),
        ];
        for (path, cwd, expected, why) in rows {
            let seen = places(&fs, path, cwd);
            match expected {
                Ok(want) => assert_eq!(seen, Ok(want.into_iter().map(str::to_owned).collect()), "{why}"),
                Err(()) => assert!(seen.is_err(), "{why}: {seen:?}"),
            }
        }
    }

    #[test]
    fn without_links_a_path_is_its_text() {
        assert_eq!(places(&NoLinks, "a/../b/./c", Some("/p")), Ok(vec!["/p/b/c".to_owned()]));
        assert!(places(&NoLinks, "a\0b", Some("/p")).is_err(), "a NUL");
        assert_eq!(lexical("/../../x//y/"), "/x/y");
    }
}

//! What a shell command line writes, read as text, for the check every agent's shell call
//! meets whatever its rules (T-31): the files its output redirections name, and the paths of
//! the known writers among its commands (T-20), read through the launchers and forms that run
//! another command (T-22) — `env`, `timeout`, `sudo`, `nohup` and the others to the first known
//! command after them, `eval`'s words and `sh -c`'s text as a line of their own.
//!
//! Text is all it reads: what the shell builds at run time (an expansion, a command
//! substitution, a glob, a script, words piped to `xargs`) is not a path here. A line that holds
//! such a thing is marked as not read ([`ShellWrites::unread`]) and its words kept, so that the
//! caller can refuse one that names a held name anywhere in its text (T-32).

use super::command_paths::{Touches, assignment, known, named_paths, words};
use super::shell_forms::{LAUNCHERS, beyond_patterns};

/// How deep `eval` and `sh -c` texts are read inside one another; deeper is not read.
const MAX_DEPTH: usize = 4;

/// Shells whose `-c` text is read as a line of its own; run without `-c` (a script, or what is
/// piped to them) they run what Warden does not read.
const SHELLS: [&str; 8] = ["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

/// Commands that run text they are not given as words (read from their input, a file or an
/// expansion): a line that runs one is not read.
const RUN_UNSEEN: [&str; 5] = ["source", ".", "xargs", "parallel", "busybox"];

/// What a shell line writes, as far as its text says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellWrites {
    /// The files written: output redirections' targets and known writers' paths, quotes and
    /// escapes removed, as written (relative to the call's working directory, or absolute).
    pub targets: Vec<String>,
    /// Why the line cannot be read whole, when it cannot: an expansion, a command substitution,
    /// a glob in a target, an unclosed quote, text run that is not among its words.
    pub unread: Option<String>,
    /// Every word of the line, split at blanks, quotes, escapes and the shell's operators (and at
    /// `=`), for the check of an unread line.
    pub words: Vec<String>,
    /// The directories the line changes to (`cd DIR`, `pushd DIR`), as written, each also joined
    /// to the one before it; a relative target is also placed under each (T-31).
    pub dirs: Vec<String>,
    /// Why the line is refused unread, when it is: brace groups that expand into more than
    /// 4 096 words (T-32).
    pub refused: Option<String>,
}

/// The most directories a line's `cd`s are read for; a line with more is not read whole.
const MAX_DIRS: usize = 16;

/// The most words a line's brace groups expand into; a line whose groups expand into more is
/// refused (T-32).
pub(super) const MAX_WORDS: usize = 4096;

/// The shell's special files that a redirection names without opening a file of that name
/// (bash opens the descriptor itself), and the null device: never a held name.
pub const STREAM_FILES: [&str; 5] = ["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Whether `target` is one of [`STREAM_FILES`] or `/dev/fd/N`.
pub fn is_stream_file(target: &str) -> bool {
    STREAM_FILES.contains(&target)
        || target
            .strip_prefix("/dev/fd/")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// What `line` writes ([`ShellWrites`]).
pub fn shell_writes(line: &str) -> ShellWrites {
    let (words, expanded) = mention_words(line);
    let refused =
        (expanded > MAX_WORDS).then(|| format!("its brace groups expand into more than {MAX_WORDS} words"));
    let mut writes = ShellWrites { words, refused, ..ShellWrites::default() };
    read_line(line, 0, &mut writes);
    // After a `cd`, a relative target lands under its directory: placed there too (the
    // order of the commands is not read, so every target is placed under every one).
    let relative: Vec<String> = writes.targets.iter().filter(|t| !t.starts_with('/')).cloned().collect();
    let under: Vec<String> =
        writes.dirs.iter().flat_map(|dir| relative.iter().map(move |t| format!("{dir}/{t}"))).collect();
    writes.targets.extend(under);
    if let Some(expanded) = writes.targets.iter().find(|t| t.contains(['*', '?', '[', '{', '~'])) {
        let why = format!("`{}`, a target the shell expands", expanded.escape_debug());
        unread(&mut writes, || why);
    }
    writes
}

/// Marks `writes` unread for `why`, keeping the first reason.
fn unread(writes: &mut ShellWrites, why: impl FnOnce() -> String) {
    if writes.unread.is_none() {
        writes.unread = Some(why());
    }
}

/// Reads `line` at `depth` into `writes`.
fn read_line(line: &str, depth: usize, writes: &mut ShellWrites) {
    if depth > MAX_DEPTH {
        return unread(writes, || format!("text run inside text more than {MAX_DEPTH} times"));
    }
    if line.contains(['$', '`']) {
        unread(writes, || "an expansion or a command substitution".to_owned());
    }
    let split = super::shell_split::split(line);
    if split.unclosed {
        unread(writes, || "an unclosed quote".to_owned());
    }
    writes.targets.extend(split.targets.into_iter().filter(|t| !t.is_empty()));
    for segment in &split.segments {
        read_command(segment.trim(), depth, writes);
    }
}

/// Reads one command (no operator in it) at `depth` into `writes`.
fn read_command(segment: &str, depth: usize, writes: &mut ShellWrites) {
    if segment.is_empty() {
        return;
    }
    let Some(words) = words(segment) else {
        return unread(writes, || "an unclosed quote".to_owned());
    };
    // A launcher or a form that runs something else (T-22, T-23): read through below as far
    // as its words go; what they do not say is left to the check of an unread line.
    if let Some(why) = beyond_patterns(segment) {
        unread(writes, || why);
    }
    let mut at = words.iter().position(|w| assignment(w).is_none()).unwrap_or(words.len());
    if words.get(at).is_some_and(|w| ["cd", "pushd"].contains(&file_name(w).as_str())) {
        return change_directory(words.get(at + 1..).unwrap_or_default(), writes);
    }
    while let Some(word) = words.get(at) {
        let name = file_name(word);
        if name == "eval" {
            let text = words.get(at + 1..).unwrap_or_default().join(" ");
            return read_line(&text, depth + 1, writes);
        }
        if SHELLS.contains(&name.as_str()) {
            let rest = words.get(at + 1..).unwrap_or_default();
            // `-c`, in any cluster of short options (`-lc`, `-ec`): the next word is the text.
            let command =
                rest.iter().position(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'));
            return match command.and_then(|c| rest.get(c + 1)) {
                Some(text) => read_line(text, depth + 1, writes),
                None => unread(writes, || format!("`{name}` runs a script or its input")),
            };
        }
        if RUN_UNSEEN.contains(&name.as_str()) {
            unread(writes, || format!("`{name}` runs what its words do not say"));
        }
        if known(&name).is_some() {
            break;
        }
        if !LAUNCHERS.contains(&name.as_str()) {
            return;
        }
        // A launcher: its own options and values are passed over, to the next command read.
        at += 1;
        while let Some(next) = words.get(at) {
            let next = file_name(next);
            let stops = known(&next).is_some()
                || next == "eval"
                || SHELLS.contains(&next.as_str())
                || LAUNCHERS.contains(&next.as_str());
            if stops {
                break;
            }
            at += 1;
        }
    }
    match named_paths(words.get(at..).unwrap_or_default()) {
        Ok(Some((Touches::Writes, paths))) => {
            writes.targets.extend(paths.into_iter().filter(|p| !p.is_empty()))
        }
        Ok(Some((Touches::Reads, _)) | None) => {}
        Err(why) => unread(writes, || why),
    }
}

/// A `cd` (or `pushd`) with `args`: its directory kept in `writes`, joined to the one before it
/// too; one the text does not say (none, `-`, an expansion, `~`) leaves the line unread.
fn change_directory(args: &[String], writes: &mut ShellWrites) {
    let mut dirs = args.iter().filter(|a| !a.starts_with('-') || *a == "-");
    let dir = match (dirs.next(), dirs.next()) {
        (Some(dir), None)
            if !(dir == "-" || dir.is_empty() || dir.contains(['$', '`', '~', '*', '?', '['])) =>
        {
            dir
        }
        _ => return unread(writes, || "a `cd` to a directory the text does not say".to_owned()),
    };
    if writes.dirs.len() >= MAX_DIRS {
        return unread(writes, || format!("more than {MAX_DIRS} changes of directory"));
    }
    let joined = writes.dirs.last().filter(|_| !dir.starts_with('/')).map(|last| format!("{last}/{dir}"));
    writes.dirs.push(dir.clone());
    writes.dirs.extend(joined);
}

/// A command word's file name, lower-cased (`/usr/bin/TEE` is `tee`).
fn file_name(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_lowercase()
}

/// Every word of `line`, its quotes and backslashes removed, split at blanks, the shell's
/// operators, `$`, backquotes and `=`, each brace group expanded as the shell expands it
/// (`.{npmrc,x}` is `.npmrc` and `.x`), for the check of an unread line: `D=.g'i't`,
/// `"$(echo .bashrc)"` and `.{npmrc,x}` name `.git`, `.bashrc` and `.npmrc`.
/// Returns the words and how many the brace groups made of the words that hold one (counted up
/// to just past [`MAX_WORDS`]).
fn mention_words(line: &str) -> (Vec<String>, usize) {
    let plain: String = line.chars().filter(|c| !"'\"\\".contains(*c)).collect();
    let mut words = Vec::new();
    let mut expanded = 0;
    for word in plain.split(|c: char| c.is_whitespace() || ";&|<>()$`=".contains(c)).filter(|w| !w.is_empty())
    {
        if word.contains('{') {
            let mut out = Vec::new();
            expand_braces(word, MAX_DEPTH, &mut out);
            expanded += out.len();
            if expanded > MAX_WORDS {
                break;
            }
            words.extend(out);
        } else {
            words.push(word.to_owned());
        }
    }
    (words, expanded)
}

/// `word` with its first brace group (`{a,b}`) expanded into `out`, the groups after it in turn,
/// `depth` groups deep at most; a word with none, or deeper, as it is, its braces and commas
/// splitting it.
fn expand_braces(word: &str, depth: usize, out: &mut Vec<String>) {
    if out.len() > MAX_WORDS {
        return;
    }
    let group = word.split_once('{').and_then(|(head, rest)| {
        let (inner, tail) = rest.split_once('}')?;
        Some((head, inner, tail))
    });
    match group {
        Some((head, inner, tail)) if depth > 0 => {
            for choice in inner.split(',') {
                expand_braces(&format!("{head}{choice}{tail}"), depth - 1, out);
            }
        }
        _ => out.extend(word.split(['{', '}', ',']).filter(|w| !w.is_empty()).map(str::to_owned)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writers and the forms they are written in: the targets read, and whether the line
    /// is read whole.
    #[test]
    fn a_lines_targets_are_read_through_launchers_and_forms() {
        // Line, targets, read whole.
        let rows: [(&str, &[&str], bool); 24] = [
            ("echo x > .git/hooks/pre-commit", &[".git/hooks/pre-commit"], true),
            ("echo x >> .bashrc", &[".bashrc"], true),
            ("echo x >| a 2> b &> c", &["a", "b", "c"], true),
            ("echo x >'.np'\"mrc\"", &[".npmrc"], true),
            ("echo x > .bash\\rc", &[".bashrc"], true),
            ("cp evil .git/hooks/pre-commit", &["evil", ".git/hooks/pre-commit"], true),
            ("tee -a .bashrc", &[".bashrc"], true),
            ("sed -i s/a/b/ .git/config", &["s/a/b/", ".git/config"], false),
            ("ln -s ../x .git/hooks/post-checkout", &["../x", ".git/hooks/post-checkout"], true),
            ("true && touch .npmrc", &[".npmrc"], true),
            ("env A=1 timeout 5 tee .mcp.json", &[".mcp.json"], false),
            ("sudo -u me nohup cp a .envrc", &["a", ".envrc"], false),
            ("exec touch .envrc", &[".envrc"], false),
            ("eval 'touch .npmrc'", &[".npmrc"], false),
            ("sh -c 'echo x > .git/config'", &[".git/config"], true),
            ("bash -lc \"tee .bashrc\"", &[".bashrc"], true),
            ("/usr/bin/TEE .bashrc", &[".bashrc"], true),
            ("cat .git/config | wc -l", &[], true),
            ("echo '>' .bashrc", &[], true),
            ("echo x > \"$D/hooks/x\"", &["$D/hooks/x"], false),
            ("echo x > .gi?/config", &[".gi?/config"], false),
            ("bash script.sh", &[], false),
            ("echo .bashrc | xargs touch", &[], false),
            ("cat <<'EOF' > a.txt\ndon't\nEOF", &["a.txt"], false),
        ];
        for (line, targets, read) in rows {
            let writes = shell_writes(line);
            assert_eq!(writes.targets, targets.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>(), "{line}");
            assert_eq!(writes.unread.is_none(), read, "{line}: {writes:?}");
        }
    }

    /// A relative target after a `cd` is placed under its directory too; a `cd` the text does
    /// not say leaves the line unread.
    #[test]
    fn a_target_after_a_cd_is_placed_under_its_directory() {
        let writes = shell_writes("cd .git && cd hooks; echo x > pre-commit");
        for target in ["pre-commit", ".git/pre-commit", "hooks/pre-commit", ".git/hooks/pre-commit"] {
            assert!(writes.targets.iter().any(|t| t == target), "{target}: {writes:?}");
        }
        assert!(writes.unread.is_none(), "{writes:?}");
        for line in ["cd && echo x > a", "cd - ; touch a", "cd \"$D\" && touch a", "cd ~/x && touch a"] {
            assert!(shell_writes(line).unread.is_some(), "{line}");
        }
    }

    /// Brace groups are expanded only so far: a line of many groups is not read, never slow.
    #[test]
    fn braces_expand_within_a_bound() {
        let line = format!("cp x {}", "{a,b,c,d,e,f,g,h,i,j}".repeat(8));
        let writes = shell_writes(&line);
        assert!(writes.words.len() <= MAX_WORDS + 16, "{}", writes.words.len());
        assert!(writes.refused.is_some(), "{writes:?}");
        assert!(shell_writes("cp x .{a,b}{c,d}").refused.is_none());
    }

    #[test]
    fn an_unread_lines_words_name_what_it_builds_from() {
        let writes = shell_writes("D=.g'i't; echo x > \"$D/hooks/x\"; echo $(echo .bashrc) .{npmrc,x}");
        for word in [".git", "D/hooks/x", ".bashrc", ".npmrc"] {
            assert!(writes.words.iter().any(|w| w == word), "{word}: {:?}", writes.words);
        }
    }

    #[test]
    fn the_stream_files_are_only_the_shells_own() {
        for file in ["/dev/null", "/dev/stderr", "/dev/fd/2"] {
            assert!(is_stream_file(file), "{file}");
        }
        for file in ["/dev/fd/", "/dev/fd/x", "/dev/shm/x", "dev/null", "/dev/null/x"] {
            assert!(!is_stream_file(file), "{file}");
        }
    }
}

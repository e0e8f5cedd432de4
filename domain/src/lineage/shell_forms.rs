//! Commands that run another command than the one their first word names, or whose options
//! run or write something else (T-22, T-23): a pattern rule that names the first word says
//! nothing about the command run through it, so none of them is granted by a pattern rule, only
//! by the bare `Bash` (deliberately stricter than reading each launcher through: Warden does
//! not guess where a launcher's own options end).

use super::sed_script::plain_sed_script;
use super::shell_words::{Word, words};

/// Keywords and builtins of the shell's grammar that run what follows them, and programs that
/// run their arguments as a command (launchers and wrappers): as a command's first word, the
/// command is granted only by the bare `Bash` (T-22).
pub(super) const LAUNCHERS: [&str; 69] = [
    // Grammar: a pipeline's timing, a coprocess, a function, compound commands, arithmetic.
    "time",
    "coproc",
    "function",
    "if",
    "then",
    "elif",
    "else",
    "fi",
    "for",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
    "select",
    "in",
    "let",
    "repeat",
    "foreach",
    // Builtins that run a command, a string or a file, or set one to run later.
    "exec",
    "eval",
    "builtin",
    "command",
    "source",
    ".",
    "trap",
    "fc",
    "mapfile",
    "readarray",
    // Builtins that load code: a shared object, a module, a function file.
    "enable",
    "zmodload",
    "autoload",
    // zsh's precommand modifiers, and its builtins that run a string later or elsewhere.
    "noglob",
    "nocorrect",
    "-",
    "emulate",
    "sched",
    "zpty",
    // Programs that run their arguments as a command.
    "env",
    "nohup",
    "nice",
    "ionice",
    "setsid",
    "flock",
    "timeout",
    "xargs",
    "sudo",
    "doas",
    "su",
    "runuser",
    "pkexec",
    "chroot",
    "stdbuf",
    "unbuffer",
    "watch",
    "strace",
    "ltrace",
    "script",
    "taskset",
    "chrt",
    "numactl",
    "nsenter",
    "unshare",
    "firejail",
    "parallel",
    "systemd-run",
    "fakeroot",
    "busybox",
];

/// A command whose options or arguments run or write something else (T-23).
struct Form {
    /// The command (its file name: `/usr/bin/find` is `find`).
    command: &'static str,
    /// Short option letters that do, in any cluster (`-ni` holds `i`).
    shorts: &'static str,
    /// Long options that do, under any abbreviation getopt accepts (`--in-pl` is `--in-place`),
    /// and single-dash predicates that do, as the start of a word (`-fprint` covers `-fprintf`).
    longs: &'static [&'static str],
    /// Words or parts of words (a program's text) that do.
    texts: &'static [&'static str],
}

/// The commands a pattern rule does not grant with these options (T-23).
const FORMS: [Form; 23] = [
    Form {
        command: "find",
        shorts: "",
        longs: &["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls"],
        texts: &[],
    },
    Form { command: "jq", shorts: "fL", longs: &["--from-file", "--rawfile", "--slurpfile"], texts: JQ },
    Form { command: "gojq", shorts: "fL", longs: &["--from-file", "--rawfile", "--slurpfile"], texts: JQ },
    Form { command: "jaq", shorts: "fL", longs: &["--from-file", "--rawfile", "--slurpfile"], texts: JQ },
    Form { command: "awk", shorts: "fEil", longs: AWK, texts: AWK_TEXTS },
    Form { command: "gawk", shorts: "fEil", longs: AWK, texts: AWK_TEXTS },
    Form { command: "mawk", shorts: "fEil", longs: AWK, texts: AWK_TEXTS },
    Form { command: "nawk", shorts: "fEil", longs: AWK, texts: AWK_TEXTS },
    Form { command: "sed", shorts: "fi", longs: &["--in-place", "--file"], texts: &[] },
    Form {
        command: "tar",
        shorts: "IF",
        longs: &[
            "--to-command",
            "--use-compress-program",
            "--checkpoint-action",
            "--info-script",
            "--new-volume-script",
            "--rsh-command",
            "--rmt-command",
        ],
        texts: &[],
    },
    Form { command: "rsync", shorts: "e", longs: &["--rsh", "--rsync-path"], texts: &[] },
    Form { command: "rg", shorts: "", longs: &["--pre", "--search-zip"], texts: &[] },
    Form { command: "fd", shorts: "xX", longs: &["--exec", "--exec-batch"], texts: &[] },
    Form { command: "sort", shorts: "o", longs: &["--output", "--compress-program"], texts: &[] },
    Form { command: "zip", shorts: "T", longs: &["--unzip-command", "--test"], texts: &[] },
    Form { command: "ssh", shorts: "oF", longs: &[], texts: &[] },
    Form { command: "scp", shorts: "oFS", longs: &[], texts: &[] },
    Form { command: "sftp", shorts: "oFSD", longs: &[], texts: &[] },
    Form { command: "man", shorts: "PH", longs: &["--pager", "--html"], texts: &[] },
    Form {
        command: "curl",
        shorts: "oOKDc",
        longs: &[
            "--output",
            "--remote-name",
            "--config",
            "--dump-header",
            "--cookie-jar",
            "--trace",
            "--trace-ascii",
            "--stderr",
            "--output-dir",
            "--etag-save",
            "--hsts",
            "--alt-svc",
        ],
        texts: &[],
    },
    Form {
        command: "wget",
        shorts: "oOeaP",
        longs: &["--output-file", "--output-document", "--execute", "--append-output", "--directory-prefix"],
        texts: &[],
    },
    Form {
        command: "git",
        shorts: "",
        longs: &[
            "--exec",
            "--upload-pack",
            "--receive-pack",
            "--extcmd",
            "--template",
            "--output",
            "--exec-path",
            "--config-env",
            "--git-dir",
            "--work-tree",
            "--open-files-in-pager",
        ],
        texts: &[],
    },
    Form {
        command: "sqlite3",
        shorts: "",
        longs: &["-cmd", "-init"],
        texts: &[".shell", ".system", ".output", ".once", ".import", ".load", ".save", ".backup"],
    },
];

const JQ: &[&str] = &["system", "import", "include", "input_filename"];

const AWK: &[&str] = &["--file", "--exec", "--include", "--load", "--source"];

const AWK_TEXTS: &[&str] = &["system", "getline", "fflush", "@load", "@include"];

/// Why a pattern rule does not grant the one-command line `command` (T-22 … T-24): its text is
/// not taken at face value, it starts with a launcher, or it uses an option that runs or writes
/// something else; `None` when a pattern rule may grant it.
pub(super) fn beyond_patterns(command: &str) -> Option<String> {
    let words = match words(command) {
        Ok(words) => words,
        Err(why) => return Some(why.to_owned()),
    };
    // An assignment before the command changes what it runs (`PATH`, `LD_PRELOAD`, `GIT_*`,
    // `PAGER`), as `env` does.
    let mut rest = words.iter();
    let first = rest.next()?;
    if is_assignment(first) {
        return Some("an assignment before the command".to_owned());
    }
    let args: Vec<&Word> = rest.collect();
    let name = first.text.rsplit('/').next().unwrap_or_default();
    if LAUNCHERS.contains(&name) {
        return Some(format!("`{name}` runs another command"));
    }
    if first.text.is_empty() || first.text.starts_with('-') {
        return Some("a command whose name is empty or an option".to_owned());
    }
    if let Some(form) = FORMS.iter().find(|f| f.command == name)
        && args.iter().any(|w| form.runs_something_else(&w.text))
    {
        return Some(format!("`{name}` with an option that runs or writes something else"));
    }
    match name {
        "git" => git_globals(&args),
        // tar's first argument, without a dash, is a cluster of its options too.
        "tar" => args
            .first()
            .filter(|w| !w.text.starts_with('-') && w.text.contains(['I', 'F']))
            .map(|_| "tar with a program in its first argument".to_owned()),
        "sed" => {
            (!plain_sed_script(&args)).then(|| "a sed script with more than `s`, `p`, `d`, `q`".to_owned())
        }
        "vim" | "vi" | "nvim" | "ex" | "view" => Some(format!("`{name}` runs its own commands")),
        _ => None,
    }
}

impl Form {
    fn runs_something_else(&self, word: &str) -> bool {
        let cluster = word.strip_prefix('-').filter(|rest| !rest.starts_with('-'));
        cluster.is_some_and(|letters| letters.chars().any(|c| self.shorts.contains(c)))
            || self.longs.iter().any(|long| abbreviates(word, long))
            || self.texts.iter().any(|text| word.contains(text))
    }
}

/// Whether `word` is `long` (with or without `=VALUE`), an abbreviation of it getopt accepts,
/// or, for a single-dash predicate, a longer one that starts with it.
fn abbreviates(word: &str, long: &str) -> bool {
    let name = word.split('=').next().unwrap_or_default();
    if long.starts_with("--") {
        name.len() > 2 && name.starts_with("--") && long.starts_with(name)
    } else {
        name.starts_with(long)
    }
}

/// git's subcommands that run a command they are given (`filter-branch`, `submodule foreach`,
/// `bisect run`).
const GIT_RUNNERS: [&str; 3] = ["filter-branch", "foreach", "run"];

/// git's options before its subcommand that take the next word as their value.
const GIT_TAKES_WORD: [&str; 3] = ["--namespace", "--super-prefix", "--attr-source"];

/// git's subcommands, and their short option that runs a command it is given.
const GIT_SHORTS: [(&str, char); 4] = [("rebase", 'x'), ("clone", 'u'), ("grep", 'O'), ("difftool", 'x')];

/// git's options before its subcommand, `-c` and `-C` (a configuration, or another
/// repository's, that may name a program to run), a subcommand that runs a command it is given,
/// and the short options of [`GIT_SHORTS`]: not granted by a pattern rule (T-23).
fn git_globals(args: &[&Word]) -> Option<String> {
    let cluster_with = |w: &Word, letters: &[char]| {
        w.text.strip_prefix('-').is_some_and(|r| !r.starts_with('-') && r.contains(letters))
    };
    // The options before the subcommand, and the words they take.
    let mut globals = args.iter();
    while let Some(word) = globals.next() {
        if !word.text.starts_with('-') {
            break;
        }
        if cluster_with(word, &['c', 'C']) {
            return Some("git with `-c` or `-C`".to_owned());
        }
        if GIT_TAKES_WORD.contains(&word.text.as_str()) {
            globals.next();
        }
    }
    if args.iter().any(|w| GIT_RUNNERS.contains(&w.text.as_str())) {
        return Some("a git subcommand that runs a command".to_owned());
    }
    GIT_SHORTS
        .iter()
        .find(|(sub, letter)| {
            args.iter().any(|w| w.text == *sub) && args.iter().any(|w| cluster_with(w, &[*letter]))
        })
        .map(|(sub, letter)| format!("git {sub} -{letter}"))
}

/// `NAME=VALUE` before a command: an assignment, not the command's name.
fn is_assignment(word: &Word) -> bool {
    match word.text.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

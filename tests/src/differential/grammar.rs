//! The grammars' words: real utilities with their options, path shapes, protected names, hosts
//! in their notations, MCP tool names and subagent types. `@ROOT@` is the project root,
//! `@OUT@` a directory beside it (outside the project), `{n}` a name fresh for each call (so
//! a write never meets a file the client wants read first).
//!
//! Every path a call can write stays inside the case's temp dir (the project, `outside/`,
//! the fresh `HOME`): at most one `..` above the root, links made in the project to places in
//! the temp dir, `~` the run's own `HOME`. Paths outside it (`/etc/…`) are only read.

/// A utility and the options it takes (the first is the commonest).
pub type Utility = (&'static str, &'static [&'static str]);

/// A hundred real utilities, each with options it really takes.
pub const UTILITIES: [Utility; 100] = [
    ("ls", &["-l", "-a", "-la", "-R", "-1", "--color=never"]),
    ("cat", &["-n", "-A", "-s", "--"]),
    ("head", &["-n", "-n 5", "-c 10", "-q"]),
    ("tail", &["-n 5", "-f", "-c 10", "-F"]),
    ("grep", &["-r", "-n", "-i", "-E", "-l", "--include=*.rs", "-e"]),
    ("rg", &["-n", "-i", "--hidden", "-l", "-g", "--files"]),
    ("find", &[".", "-name", "-type f", "-delete", "-exec", "-maxdepth 1"]),
    ("wc", &["-l", "-c", "-w"]),
    ("sort", &["-u", "-n", "-r", "-o"]),
    ("uniq", &["-c", "-d", "-u"]),
    ("cut", &["-d,", "-f1", "-c1-3"]),
    ("tr", &["-d", "-s", "a-z A-Z"]),
    ("sed", &["-n", "-i", "-e", "-E", "s/a/b/"]),
    ("awk", &["-F:", "'{print $1}'", "-v x=1"]),
    ("touch", &["-c", "-m", "-d now", "-r"]),
    ("mkdir", &["-p", "-m 700", "-v"]),
    ("rm", &["-f", "-r", "-rf", "-i", "--"]),
    ("rmdir", &["-p", "--ignore-fail-on-non-empty"]),
    ("cp", &["-r", "-a", "-f", "-n", "-t"]),
    ("mv", &["-f", "-n", "-v", "-t"]),
    ("ln", &["-s", "-sf", "-f", "-T"]),
    ("chmod", &["+x", "755", "-R", "u+w"]),
    ("chown", &["-R", "root", "root:root"]),
    ("stat", &["-c %s", "-L", "--format=%n"]),
    ("file", &["-b", "-i", "-L"]),
    ("du", &["-sh", "-a", "-d 1"]),
    ("df", &["-h", "-i", "."]),
    ("tree", &["-a", "-L 2", "-d"]),
    ("realpath", &["-e", "-m", "-s"]),
    ("readlink", &["-f", "-e", "-n"]),
    ("basename", &["-a", "-s .rs"]),
    ("dirname", &["-z"]),
    ("echo", &["-n", "-e", "hello"]),
    ("printf", &["%s\\n", "'%d'"]),
    ("tee", &["-a", "-i"]),
    ("xargs", &["-0", "-n 1", "-I {}", "rm"]),
    ("diff", &["-u", "-r", "-q"]),
    ("patch", &["-p1", "-R", "-i"]),
    ("tar", &["-czf", "-xzf", "-tf", "-C"]),
    ("zip", &["-r", "-q", "-9"]),
    ("unzip", &["-o", "-l", "-d"]),
    ("gzip", &["-d", "-k", "-9"]),
    ("curl", &["-s", "-O", "-o", "-X POST", "--data", "-L"]),
    ("wget", &["-q", "-O", "--post-data=x", "-r"]),
    ("ssh", &["-i", "-p 22", "-o StrictHostKeyChecking=no"]),
    ("scp", &["-r", "-P 22", "-i"]),
    ("rsync", &["-a", "-av", "--delete", "-e ssh"]),
    ("git", &["status", "log", "diff", "push", "commit -m x", "-C", "config", "reset --hard", "clean -fdx"]),
    ("gh", &["pr create", "pr list", "repo clone", "api"]),
    ("npm", &["install", "run build", "test", "publish", "exec", "ci"]),
    ("npx", &["-y", "--yes", "prettier"]),
    ("yarn", &["install", "add", "run"]),
    ("pnpm", &["install", "add", "exec"]),
    ("node", &["-e", "-p", "--eval"]),
    ("python3", &["-c", "-m", "-m http.server", "-I"]),
    ("pip", &["install", "uninstall -y", "download"]),
    ("cargo", &["build", "test", "run", "install", "publish", "--manifest-path"]),
    ("rustc", &["-o", "--edition 2021", "-O"]),
    ("go", &["build", "run", "test", "install", "get"]),
    ("make", &["-C", "-j4", "install", "-f"]),
    ("cmake", &["-S .", "-B build", "--build"]),
    ("docker", &["run", "exec", "build", "-v", "rm -f"]),
    ("kubectl", &["apply -f", "delete", "get pods", "exec"]),
    ("terraform", &["apply", "plan", "destroy", "-auto-approve"]),
    ("env", &["-i", "-u PATH", "X=1"]),
    ("sudo", &["-u root", "-E", "-s"]),
    ("su", &["-c", "-", "root"]),
    ("timeout", &["5", "-s KILL 5", "--preserve-status 1"]),
    ("nohup", &["--"]),
    ("nice", &["-n 10", "-n -5"]),
    ("time", &["-p", "-v"]),
    ("watch", &["-n 1", "-d"]),
    ("bash", &["-c", "-lc", "-x", "--norc"]),
    ("sh", &["-c", "-e", "-x"]),
    ("zsh", &["-c", "-f"]),
    ("eval", &["x", "'touch a'"]),
    ("exec", &["-a name", "-c"]),
    ("command", &["-v", "-p", "-V"]),
    ("builtin", &["echo", "cd"]),
    ("source", &["./x.sh", ".env"]),
    ("kill", &["-9", "-TERM", "-l", "-0"]),
    ("pkill", &["-f", "-9", "-u root"]),
    ("ps", &["aux", "-ef", "-p 1"]),
    ("crontab", &["-l", "-e", "-r"]),
    ("systemctl", &["status", "stop", "restart", "--user"]),
    ("mount", &["-o bind", "-t tmpfs", "--bind"]),
    ("dd", &["if=/dev/zero", "of=x", "bs=1M", "count=1"]),
    ("openssl", &["rand -hex 8", "enc -d", "s_client -connect"]),
    ("base64", &["-d", "-w0"]),
    ("sha256sum", &["-c", "--quiet", "-b"]),
    ("jq", &["-r", ".", "-c", "--arg x y"]),
    ("yq", &["-i", "e", "-r"]),
    ("vim", &["-c", "+wq", "-es"]),
    ("nano", &["-w", "+1"]),
    ("less", &["-N", "+F"]),
    ("date", &["+%s", "-u", "-s"]),
    ("which", &["-a"]),
    ("pwd", &["-P", "-L"]),
    ("cd", &["..", "-", "/"]),
    ("export", &["PATH=/tmp", "-n", "X=1"]),
];

/// Utilities that run another command, a file or a string as commands (launchers): a prefix
/// rule for one of them is the launcher class's (`bash-launcher`), not the plain prefix class's.
pub const LAUNCHERS: [&str; 20] = [
    "env", "sudo", "su", "timeout", "nohup", "nice", "time", "watch", "bash", "sh", "zsh", "eval", "exec",
    "command", "builtin", "source", "xargs", "find", "npx", "ssh",
];

/// Utilities whose first argument is a place the shell moves to (`cd ..`): a path argument,
/// the `bash-path-args` class's, so the plain prefix class leaves them out too.
pub const MOVERS: [&str; 1] = ["cd"];

/// A path shape and whether a call may write through it (it stays inside the temp dir).
pub type Shape = (&'static str, bool);

/// Paths as an agent writes them: relative, `./` and `//`, `..`, absolute, `~`, letter case,
/// Unicode (precomposed and decomposed, NBSP, zero-width, a homoglyph, full width), long.
pub const PATHS: [Shape; 38] = [
    ("src/{n}.rs", true),
    ("src/a.rs", false),
    ("docs/{n}.md", true),
    ("./src/{n}.rs", true),
    ("src//{n}.rs", true),
    ("src/./{n}.rs", true),
    ("src/../docs/{n}.md", true),
    ("../outside/{n}.txt", true),
    ("sub/../../outside/{n}.txt", true),
    ("src/../../outside/o.txt", false),
    ("./.././outside/{n}.txt", true),
    ("@ROOT@/src/{n}.rs", true),
    ("@ROOT@/../outside/{n}.txt", true),
    ("@OUT@/{n}.txt", true),
    ("@OUT@/o.txt", false),
    ("/etc/hostname", false),
    ("/etc/passwd", false),
    ("~/{n}.txt", true),
    ("~/.ssh/{n}", true),
    ("~root/.profile", false),
    ("SRC/{n}.rs", true),
    ("Src/A.rs", false),
    ("DOCS/X.MD", false),
    ("src/\u{e9}{n}.rs", true),
    ("src/e\u{301}{n}.rs", true),
    ("src\u{a0}/{n}.rs", true),
    ("src/\u{200b}{n}.rs", true),
    ("\u{200b}src/{n}.rs", true),
    ("\u{455}rc/{n}.rs", true),
    ("\u{ff53}\u{ff52}\u{ff43}/{n}.rs", true),
    ("src/{n}\u{202e}sr.txt", true),
    ("src/{long}.rs", true),
    ("src/{deep}/{n}.rs", true),
    ("sub/src/{n}.rs", true),
    ("src/{n}.RS", true),
    ("src/{n}.rs ", true),
    (" src/{n}.rs", true),
    ("src/{n}.rs\t", true),
];

/// Links the project holds (made before the run): to a place inside it, to `outside/` (by a
/// relative and an absolute target), to nowhere, and a chain; and paths through them.
pub const LINKS: [(&str, &str); 5] = [
    ("lnk_in", "src"),
    ("lnk_out", "../outside"),
    ("lnk_abs", "@OUT@"),
    ("lnk_dangling", "../nowhere"),
    ("lnk_chain", "lnk_out"),
];

/// Paths through the project's links.
pub const LINK_PATHS: [Shape; 12] = [
    ("lnk_in/{n}.rs", true),
    ("lnk_in/a.rs", false),
    ("lnk_out/{n}.txt", true),
    ("lnk_out/o.txt", false),
    ("lnk_abs/{n}.txt", true),
    ("lnk_dangling", true),
    ("lnk_dangling/{n}.txt", true),
    ("lnk_chain/{n}.txt", true),
    ("lnk_in/../{n}.txt", true),
    ("lnk_out/../project/src/{n}.rs", true),
    ("src/../lnk_out/{n}.txt", true),
    ("@ROOT@/lnk_out/{n}.txt", true),
];

/// Names a client protects (version control, its own configuration, shells' and tools' start
/// files), some in another case or below a sub-directory.
pub const PROTECTED: [Shape; 24] = [
    (".git/{n}", true),
    (".git/hooks/{n}", true),
    (".git/config", false),
    (".claude/{n}.json", true),
    (".claude/agents/{n}.md", true),
    (".claude/commands/{n}.md", true),
    (".bashrc", true),
    (".zshrc", true),
    (".profile", true),
    (".gitconfig", true),
    (".vscode/{n}.json", true),
    (".idea/{n}.xml", true),
    (".mcp.json", true),
    (".npmrc", true),
    (".envrc", true),
    (".husky/{n}", true),
    (".gitmodules", true),
    (".GIT/{n}", true),
    (".Claude/{n}.json", true),
    (".Bashrc", true),
    ("sub/.git/{n}", true),
    ("sub/.claude/{n}.json", true),
    ("./.claude/{n}.json", true),
    ("src/../.git/hooks/{n}", true),
];

/// Path patterns for `Read(…)` and `Edit(…)` rules.
pub const PATTERNS: [&str; 24] = [
    "src/**",
    "/src/**",
    "./src/**",
    "src/*",
    "*.rs",
    "**/*.rs",
    "**/*.md",
    "docs/**",
    "**",
    "/**",
    "//@OUT@/**",
    "//@ROOT@/src/**",
    "~/**",
    "~/.ssh/**",
    "../outside/**",
    "lnk_in/**",
    "lnk_out/**",
    ".claude/**",
    ".git/**",
    ".*",
    "SRC/**",
    "src/a.rs",
    "sub/**",
    "//etc/**",
];

/// Domains for `WebFetch(domain:…)` rules.
pub const DOMAINS: [&str; 8] = [
    "example.com",
    "*.example.com",
    "EXAMPLE.com",
    "127.0.0.1",
    "localhost",
    "xn--exmple-cua.com",
    "[::1]",
    "example.com.",
];

/// URLs naming hosts in every notation: case, trailing dot, sub-domain, port, userinfo, a
/// host in a path or query, punycode and a homoglyph, IPv4 as one number, hex, octal and short,
/// IPv6 and mapped IPv4, percent escapes, a backslash, another scheme.
pub const URLS: [&str; 32] = [
    "https://example.com/",
    "http://example.com/a",
    "https://EXAMPLE.COM/",
    "https://example.com./",
    "https://sub.example.com/",
    "https://example.com:8443/",
    "https://example.com@evil.invalid/",
    "https://user:pw@example.com/",
    "https://evil.invalid/example.com",
    "https://evil.invalid/?u=https://example.com",
    "https://example.com.evil.invalid/",
    "https://evilexample.com/",
    "https://xn--exmple-cua.com/",
    "https://ex\u{430}mple.com/",
    "https://%65xample.com/",
    "https://example%2ecom/",
    "https://example.com\\@evil.invalid/",
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://localhost/",
    "http://LOCALHOST./",
    "ftp://example.com/",
    "file:///etc/passwd",
    "//example.com/",
    "https://example.com\u{3002}evil.invalid/",
    " https://example.com/",
    "https://exa mple.com/",
];

/// MCP tool names (`mcp__SERVER__TOOL`), for rules and calls.
pub const MCP_NAMES: [&str; 8] = [
    "mcp__fs__read",
    "mcp__fs__write",
    "mcp__fs",
    "mcp__fs__*",
    "mcp__FS__read",
    "mcp__fs_x__read",
    "mcp__fs__read__x",
    "mcp__git__push",
];

/// Subagent types: the example's, Claude Code's built-in ones, and near misses.
pub const AGENT_TYPES: [&str; 12] = [
    "planner",
    "coder",
    "researcher",
    "main",
    "Explore",
    "general-purpose",
    "Planner",
    "planner ",
    "plan*",
    "../planner",
    "planner\u{200b}",
    "",
];

/// Words a command may carry beyond its options.
pub const WORDS: [&str; 12] =
    ["x", "a b", "main", "origin", "-", "--", "1", "*", "$HOME", "~", "{a,b}", "\"q\""];

/// What may follow a command to make it two (or hide one in it).
pub const JOINERS: [&str; 14] =
    [" && ", " ; ", " || ", " | ", " & ", "\n", " > ", " >> ", " < ", " $(", " `", " <(", " \u{a0}", "\r"];

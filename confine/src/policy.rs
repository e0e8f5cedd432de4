//! The confinement as the launcher receives it: one argument, read strictly (E-8). The
//! domain writes it (`Confinement::encode` in `agentwarden-domain`); anything else is refused,
//! never read as something narrower or wider.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

/// What the launcher does when the kernel cannot confine (E-9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Refuse to run the command.
    Required,
    /// Run it unconfined, saying so on standard error.
    Recorded,
}

/// The network a confined process may reach (E-6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Network {
    /// None: no TCP (Landlock), no other IP socket (the socket filter, E-33).
    None,
    /// TCP connect to the web ports (for the hosts named: the kernel cannot tell hosts apart).
    Web(Vec<String>),
    /// Every network the user may reach: the main session's shell (E-35). Landlock handles no
    /// network right and the socket filter is not installed.
    All,
}

/// The confinement, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// What to do when the kernel cannot confine.
    pub mode: Mode,
    /// Beneath these: read, write, execute.
    pub write: Vec<PathBuf>,
    /// Beneath these: read and execute; `None` for everywhere.
    pub read: Option<Vec<PathBuf>>,
    /// Read-only holes in the write grants.
    pub read_only: Vec<PathBuf>,
    /// The network.
    pub network: Network,
    /// The session's temporary directory: the command's `TMPDIR` (E-12).
    pub temp: Option<PathBuf>,
    /// Held names (relative): read-only holes wherever they are found (E-31).
    pub held: Vec<PathBuf>,
    /// Held names (relative): read-only holes where found and not a directory (E-31).
    pub held_files: Vec<PathBuf>,
    /// Where held names are looked for besides the write grants' tops and the working
    /// directory's way up to its grant (E-31).
    pub held_at: Vec<PathBuf>,
}

/// What is wrong with the launcher's first argument (E-8): the launcher refuses it (E-9).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The argument is not UTF-8.
    #[error("the confinement is not UTF-8")]
    NotUtf8,
    /// An unknown version.
    #[error("the confinement does not start with `v1`")]
    Version,
    /// An unknown mode.
    #[error("the confinement's second word is `required` or `recorded`")]
    Mode,
    /// A word without `=`.
    #[error("`{word}` is not KEY=VALUE")]
    NotKeyValue { word: String },
    /// A host that unescapes to bytes that are not UTF-8.
    #[error("`{word}`: not UTF-8")]
    HostNotUtf8 { word: String },
    /// A key the confinement has not, or one given where it may not be.
    #[error("`{word}` is not a word of the confinement")]
    UnknownWord { word: String },
    /// Every read and some reads at once.
    #[error("`r=*` and `r=PATH` together")]
    AllAndSome,
    /// A write grant that would make a protected path writable.
    #[error("the write grant {} is inside a read-only hole", grant.display())]
    WriteInHole { grant: PathBuf },
    /// No network word: not read as none or any.
    #[error("the confinement names no network (`net=none`, `net=any`, `net=all` or `host=HOST`)")]
    NoNetwork,
    /// A path word that is not absolute and normal.
    #[error("`{text}` is not an absolute, normal path")]
    NotAbsolute { text: String },
    /// A held name that is not relative and normal.
    #[error("`{text}` is not a relative, normal name")]
    NotRelative { text: String },
    /// A value not escaped as the confinement escapes.
    #[error("`{text}` is not escaped as the confinement escapes")]
    NotEscaped { text: String },
}

/// Reads the launcher's first argument (E-8): `Err` says what is wrong with it.
pub fn decode(text: &str) -> Result<Policy, PolicyError> {
    let mut words = text.split(' ');
    if words.next() != Some("v1") {
        return Err(PolicyError::Version);
    }
    let mode = match words.next() {
        Some("required") => Mode::Required,
        Some("recorded") => Mode::Recorded,
        _ => return Err(PolicyError::Mode),
    };
    let mut policy = Policy {
        mode,
        write: Vec::new(),
        read: Some(Vec::new()),
        read_only: Vec::new(),
        network: Network::None,
        temp: None,
        held: Vec::new(),
        held_files: Vec::new(),
        held_at: Vec::new(),
    };
    let (mut all, mut some, mut net) = (false, false, None::<Network>);
    for word in words {
        let (key, value) =
            word.split_once('=').ok_or_else(|| PolicyError::NotKeyValue { word: word.to_owned() })?;
        match (key, value) {
            ("r", "*") => all = true,
            ("net", "none") if net.is_none() => net = Some(Network::None),
            ("net", "any") if net.is_none() => net = Some(Network::Web(Vec::new())),
            ("net", "all") if net.is_none() => net = Some(Network::All),
            ("host", host) if !matches!(net, Some(Network::None | Network::All)) => {
                let host = String::from_utf8(unescape(host)?)
                    .map_err(|_| PolicyError::HostNotUtf8 { word: word.to_owned() })?;
                match &mut net {
                    Some(Network::Web(hosts)) => hosts.push(host),
                    _ => net = Some(Network::Web(vec![host])),
                }
            }
            ("w", path) => policy.write.push(absolute(path)?),
            ("r", path) => {
                some = true;
                if let Some(read) = &mut policy.read {
                    read.push(absolute(path)?);
                }
            }
            ("ro", path) => policy.read_only.push(absolute(path)?),
            ("held", name) => policy.held.push(relative(name)?),
            ("heldfile", name) => policy.held_files.push(relative(name)?),
            ("at", path) => policy.held_at.push(absolute(path)?),
            ("tmp", path) if policy.temp.is_none() => policy.temp = Some(absolute(path)?),
            _ => return Err(PolicyError::UnknownWord { word: word.to_owned() }),
        }
    }
    if all && some {
        return Err(PolicyError::AllAndSome);
    }
    if all {
        policy.read = None;
    }
    // A write grant inside a read-only hole would make the protected path writable: the
    // domain never writes one, and the launcher does not read one as either.
    if let Some(grant) = policy.write.iter().find(|w| policy.read_only.iter().any(|hole| w.starts_with(hole)))
    {
        return Err(PolicyError::WriteInHole { grant: grant.clone() });
    }
    policy.network = net.ok_or(PolicyError::NoNetwork)?;
    Ok(policy)
}

/// A path word: absolute, no `.` or `..` segment, no NUL.
fn absolute(text: &str) -> Result<PathBuf, PolicyError> {
    let bytes = unescape(text)?;
    let normal = bytes.first() == Some(&b'/')
        && !bytes.contains(&0)
        && bytes
            .split(|b| *b == b'/')
            .skip(1)
            .all(|s| s != b"." && s != b".." && (!s.is_empty() || bytes.len() == 1));
    if !normal {
        return Err(PolicyError::NotAbsolute { text: text.to_owned() });
    }
    Ok(PathBuf::from(OsString::from_vec(bytes)))
}

/// A held name: relative, no `.` or `..` or empty segment, no NUL.
fn relative(text: &str) -> Result<PathBuf, PolicyError> {
    let bytes = unescape(text)?;
    let normal =
        !bytes.contains(&0) && bytes.split(|b| *b == b'/').all(|s| !s.is_empty() && s != b"." && s != b"..");
    if !normal {
        return Err(PolicyError::NotRelative { text: text.to_owned() });
    }
    Ok(PathBuf::from(OsString::from_vec(bytes)))
}

/// `%XX` back to its byte; every other byte must be one the encoding leaves as it is.
fn unescape(text: &str) -> Result<Vec<u8>, PolicyError> {
    let bad = || PolicyError::NotEscaped { text: text.to_owned() };
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(byte) = bytes.next() {
        if byte == b'%' {
            let hex = [bytes.next().ok_or_else(bad)?, bytes.next().ok_or_else(bad)?];
            let hex = std::str::from_utf8(&hex).map_err(|_| bad())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
        } else if byte.is_ascii_alphanumeric() || b"/._-".contains(&byte) {
            out.push(byte);
        } else {
            return Err(bad());
        }
    }
    if text.is_empty() {
        return Err(bad());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argument_is_read_strictly() {
        // (argument, accepted, why)
        let table: [(&str, bool, &str); 25] = [
            ("v1 required w=/ r=* net=all", true, "the main session's network"),
            ("v1 required w=/ r=* net=all host=x.org", false, "all and a host"),
            ("v1 required w=/ r=* net=all net=none", false, "all and none"),
            ("v1 required w=/ws held=.git/hooks heldfile=.git at=/ws net=none", true, "held names"),
            ("v1 required w=/ws held=/etc net=none", false, "an absolute held name"),
            ("v1 required w=/ws held=../x net=none", false, "a held name going up"),
            ("v1 required w=/ws held=a//b net=none", false, "an empty segment"),
            ("v1 required w=/ws heldfile=./a net=none", false, "a `.` segment"),
            ("v1 required w=/ws at=ws net=none", false, "a relative place to look"),
            ("v1 required w=/ws/okrs/a ro=/ws/okrs net=none", false, "a write grant inside a hole"),
            ("v1 required w=/ws ro=/ws/okrs net=none", true, "a hole inside a write grant"),
            ("v1 required r=* net=none tmp=/t", true, "a temporary directory"),
            ("v1 required r=* net=none tmp=/t tmp=/u", false, "two temporary directories"),
            ("v1 required r=* net=none", true, "the narrowest"),
            ("v1 recorded w=/a%20b r=/usr ro=/a%20b/c host=x.org host=y.org", true, "escaped, hosts"),
            ("v2 required r=* net=none", false, "an unknown version"),
            ("v1 maybe r=* net=none", false, "an unknown mode"),
            ("v1 required r=*", false, "no network word: not read as none or any"),
            ("v1 required r=* r=/usr net=none", false, "all and some reads"),
            ("v1 required w=relative net=none", false, "a relative path"),
            ("v1 required w=/a/../etc net=none", false, "a `..`"),
            ("v1 required w=/a%00 net=none", false, "a NUL"),
            ("v1 required w=/a b net=none", false, "a stray word"),
            ("v1 required net=none host=x.org", false, "no network and a host"),
            ("v1 required  net=none", false, "an empty word"),
        ];
        for (text, accepted, why) in table {
            assert_eq!(decode(text).is_ok(), accepted, "{text}: {why}: {:?}", decode(text));
        }
        let policy =
            decode("v1 recorded w=/a%20b r=/usr ro=/a%20b/c host=x.org").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(policy.write, vec![PathBuf::from("/a b")]);
        assert_eq!(policy.read_only, vec![PathBuf::from("/a b/c")]);
        assert_eq!(policy.network, Network::Web(vec!["x.org".to_owned()]));
        assert_eq!(policy.mode, Mode::Recorded);
    }

    /// The domain's `net=all` (E-35), and each other network, read back as written.
    #[test]
    fn each_network_the_domain_writes_is_read_back() {
        use agentwarden_domain::confine::{Confinement, Mode as Written, Network as Wrote};
        for (wrote, read) in [
            (Wrote::All, Network::All),
            (Wrote::None, Network::None),
            (Wrote::Any, Network::Web(Vec::new())),
            (Wrote::Hosts(vec!["a.org".to_owned()]), Network::Web(vec!["a.org".to_owned()])),
        ] {
            let c = Confinement { write: vec!["/".to_owned()], network: wrote, ..Confinement::default() };
            let text = c.encode(Written::Required);
            assert_eq!(decode(&text).map(|p| p.network), Ok(read), "{text}");
        }
    }
}

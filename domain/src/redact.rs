//! What Agent Warden shows of an endpoint, a URL or a connection string: never its credentials
//! . `warden status` answers any peer of the socket, and logs and `warden doctor` are read
//! by more people than the secrets in an `OTEL_EXPORTER_OTLP_ENDPOINT`, a witness URL or a
//! `postgres://` store URL were given to. [`credentials`] is the one function every such place
//! calls: it masks, in any text, each URL's userinfo (`user:password@`, or a token alone), the
//! value of each query or fragment parameter whose name looks like a secret's, and the value of
//! each `name=value` word outside a URL whose name does (a libpq `password=…`).

/// What a secret is replaced with.
pub const MASK: &str = "***";

/// A parameter is a secret's when its name, lower-cased and percent-decoded, contains one of
/// these (too many rather than one too few: `key` masks `monkey` too).
const SECRET_NAMES: &[&str] =
    &["pass", "pwd", "secret", "token", "key", "auth", "sig", "credential", "cookie", "jwt", "bearer"];

/// `text` with every credential it holds masked: whole text or a bare URL alike, the
/// rest kept as it is. Masking twice is masking once.
pub fn credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let before = rest.get(..at).unwrap_or_default();
        let scheme =
            before.bytes().rev().take_while(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b)).count();
        let start = at - scheme;
        let end = rest
            .get(at + 3..)
            .and_then(|tail| tail.find(char::is_whitespace))
            .map_or(rest.len(), |n| at + 3 + n);
        out.push_str(&words(&bare_userinfo(rest.get(..start).unwrap_or_default())));
        out.push_str(&url(rest.get(start..end).unwrap_or_default()));
        rest = rest.get(end..).unwrap_or_default();
    }
    out.push_str(&words(&bare_userinfo(rest)));
    out
}

/// Words outside URLs that are an authority with its userinfo, with no scheme
/// (`user:password@host:port`, as an endpoint is sometimes given): the part before the last
/// `@` masked when it holds a `:` (an address `alice@example.com` holds none).
fn bare_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let lead = word.len() - word.trim_start_matches(['`', '\'', '"', '(', '<', '[']).len();
        match word.rfind('@') {
            Some(at) if at > lead && word.get(lead..at).is_some_and(|user| user.contains(':')) => {
                out.push_str(word.get(..lead).unwrap_or_default());
                out.push_str(MASK);
                out.push_str(word.get(at..).unwrap_or_default());
            }
            _ => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// One URL (`scheme://` to the first white space): its userinfo, and its secret parameters,
/// masked.
fn url(url: &str) -> String {
    let Some((scheme, after)) = url.split_once("://") else { return url.to_owned() };
    let authority_end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(authority_end);
    let host = match authority.rfind('@') {
        Some(at) => format!("{MASK}@{}", authority.get(at + 1..).unwrap_or_default()),
        None => authority.to_owned(),
    };
    let (path, parameters) = match rest.find(['?', '#']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    format!("{scheme}://{host}{path}{}", masked_parameters(parameters))
}

/// `?a=1&b=2#c=3`, each value whose name looks like a secret's masked.
fn masked_parameters(parameters: &str) -> String {
    let mut out = String::with_capacity(parameters.len());
    let mut name_start = true;
    let mut in_secret = false;
    let mut name = String::new();
    for c in parameters.chars() {
        match c {
            '?' | '#' | '&' | ';' => {
                out.push(c);
                name_start = true;
                in_secret = false;
                name.clear();
            }
            '=' if name_start => {
                out.push('=');
                name_start = false;
                in_secret = is_secret_name(&name);
                if in_secret {
                    out.push_str(MASK);
                }
            }
            _ if name_start => {
                name.push(c);
                out.push(c);
            }
            _ if in_secret => {}
            _ => out.push(c),
        }
    }
    out
}

/// `name=value` words outside URLs, each value whose name looks like a secret's masked: a
/// libpq connection string's `password=…`, `password='…'`.
fn words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('=') {
        let (before, after) = rest.split_at(at);
        let name_len =
            before.bytes().rev().take_while(|b| b.is_ascii_alphanumeric() || b"_-.%".contains(b)).count();
        let name = before.get(before.len() - name_len..).unwrap_or_default();
        out.push_str(before);
        out.push('=');
        let value = after.get(1..).unwrap_or_default();
        if name.is_empty() || !is_secret_name(name) {
            rest = value;
            continue;
        }
        out.push_str(MASK);
        let end = match value.chars().next() {
            Some(quote @ ('\'' | '"')) => {
                value.get(1..).and_then(|v| v.find(quote)).map_or(value.len(), |n| n + 2)
            }
            _ => value.find(|c: char| c.is_whitespace() || ",;&".contains(c)).unwrap_or(value.len()),
        };
        rest = value.get(end..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// Whether a parameter named `name` holds a secret: its name, lower-cased and with `%XX`
/// decoded, contains a [`SECRET_NAMES`] word.
fn is_secret_name(name: &str) -> bool {
    let mut decoded = String::with_capacity(name.len());
    let mut bytes = name.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hex: String = bytes.by_ref().take(2).map(char::from).collect();
            match u8::from_str_radix(&hex, 16) {
                Ok(byte) => decoded.push(char::from(byte)),
                Err(_) => decoded.push_str(&hex),
            }
        } else {
            decoded.push(char::from(b));
        }
    }
    let decoded = decoded.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|word| decoded.contains(word))
}

#[cfg(test)]
mod tests {
    use super::credentials;

    /// (text, shown, why): the credentials of endpoints, URLs and connection strings, masked
    /// alone and inside a message, and what is not a credential kept.
    #[test]
    fn every_credential_is_masked_and_nothing_else() {
        for (text, shown, why) in [
            ("http://user:pw@host:4318", "http://***@host:4318", "user and password"),
            ("https://TOKEN@host/v1/traces", "https://***@host/v1/traces", "a token as the user"),
            ("http://u:p@ss@host/x", "http://***@host/x", "an `@` in the password"),
            ("http://u:p%40w@host", "http://***@host", "an encoded `@`"),
            (
                "postgres://u:pw@db:5432/audit?options=-csearch_path%3Dfleet&password=pw2",
                "postgres://***@db:5432/audit?options=-csearch_path%3Dfleet&password=***",
                "a store URL: userinfo and a password parameter, the schema kept",
            ),
            (
                "http://h/x?api_key=k1&X-Amz-Signature=s1&page=2",
                "http://h/x?api_key=***&X-Amz-Signature=***&page=2",
                "secret-looking parameters only",
            ),
            ("http://h/x?pass%77ord=k1", "http://h/x?pass%77ord=***", "a percent-encoded name"),
            ("http://h/cb#access_token=t1&state=s", "http://h/cb#access_token=***&state=s", "a fragment"),
            (
                "cannot export to `http://u:pw@h:9/v1/traces`: refused",
                "cannot export to `http://***@h:9/v1/traces`: refused",
                "inside a message",
            ),
            (
                "endpoint=http://u:pw@h:9/v1/traces store=postgres://a:b@db/x",
                "endpoint=http://***@h:9/v1/traces store=postgres://***@db/x",
                "a log line with two",
            ),
            (
                "host=db user=u password=pw1 dbname=x",
                "host=db user=u password=*** dbname=x",
                "a libpq string",
            ),
            ("password='p w' sslmode=require", "password=*** sslmode=require", "a quoted libpq value"),
            ("http://h:9/v1/traces", "http://h:9/v1/traces", "no credential"),
            ("alice@example.com wrote a=b", "alice@example.com wrote a=b", "no URL, no secret name"),
            ("http://***@h", "http://***@h", "masked already"),
            ("é://ü:pw@h", "é://***@h", "non-ASCII around"),
            ("cannot export to `user:pw@host:4318`", "cannot export to `***@host:4318`", "no scheme"),
            (
                "git@github.com:org/repo at 10:39:06",
                "git@github.com:org/repo at 10:39:06",
                "no `:` before the `@`",
            ),
        ] {
            assert_eq!(credentials(text), shown, "{why}");
            assert_eq!(credentials(shown), shown, "{why}: masking twice is masking once");
        }
    }
}

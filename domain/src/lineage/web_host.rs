//! The host of a URL as the WHATWG URL parser reads it, and the host a `WebFetch(domain:HOST)`
//! rule names (T-7, T-25). The client normalises a URL's host before it compares it with a rule,
//! so Warden does too: an IPv4 address in any notation the parser accepts (`10.1`, `0x0a.0.0.1`,
//! `012.0.0.1`, `167772161`) is its dotted-decimal form, and a rule whose host is not already
//! in normal form is refused at load. What Warden does not normalise grants nothing: an IPv6
//! literal, a host with non-ASCII characters (IDNA) or percent-escapes, userinfo, a backslash.

/// The host of an `http(s)` URL, normalised: lowercase, an IPv4 address in dotted-decimal;
/// `None` (grants nothing) for anything Warden does not read exactly as the parser does
/// (T-7, T-25).
pub(super) fn host_of(url: &str) -> Option<String> {
    let lower = url.to_ascii_lowercase();
    let rest = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.contains(['@', '\\', '%', '[', ']']) {
        return None;
    }
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        Some(_) => return None,
        None => authority,
    };
    normal_host(host)
}

/// The host a rule's `domain:HOST` names, lowercase, when it is already in the form the parser
/// gives (T-25): an IPv4 address written other than as four decimal parts (`10.1`), a last
/// label that is a number (`example.123`), an empty label or a trailing dot is refused.
pub(super) fn rule_host(host: &str) -> Result<String, &'static str> {
    let lower = host.to_ascii_lowercase();
    if lower.is_empty() || lower.split('.').any(str::is_empty) {
        return Err("a host has no empty label and no trailing dot");
    }
    match normal_host(&lower) {
        Some(normal) if normal == lower => Ok(normal),
        Some(_) => Err("an IPv4 address is written as four decimal numbers, `10.0.0.1`"),
        None => Err("a host is letters, digits, `-` and `.`, or an IPv4 address"),
    }
}

/// `host` (lowercase ASCII) as the parser gives it: a domain that ends in a number is an IPv4
/// address in dotted-decimal, or `None` when it is not one (the parser refuses the URL); a
/// domain is letters, digits, `-` and `.`, a trailing dot ignored (T-7).
fn normal_host(host: &str) -> Option<String> {
    if host.is_empty() || !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-') {
        return None;
    }
    if ends_in_number(host) {
        return ipv4(host).map(|[a, b, c, d]| format!("{a}.{b}.{c}.{d}"));
    }
    let host = host.strip_suffix('.').unwrap_or(host);
    (!host.is_empty()).then(|| host.to_owned())
}

/// The parser's "ends in a number": the last label (a trailing empty one dropped) is decimal
/// digits, or `0x` and hexadecimal digits.
fn ends_in_number(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    let last = host.rsplit('.').next().unwrap_or_default();
    if !last.is_empty() && last.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    last.strip_prefix("0x").is_some_and(|hex| hex.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The parser's IPv4 parser: one to four parts (a trailing dot dropped), each decimal, octal
/// with a leading `0`, or hexadecimal with `0x`; the last fills the bytes the others leave.
fn ipv4(host: &str) -> Option<[u8; 4]> {
    let host = host.strip_suffix('.').unwrap_or(host);
    let parts: Vec<&str> = host.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let numbers: Vec<u64> = parts.iter().map(|part| ipv4_number(part)).collect::<Option<_>>()?;
    let (last, first) = numbers.split_last()?;
    if first.iter().any(|n| *n > 255) {
        return None;
    }
    let room = 8 * (5 - numbers.len() as u32);
    if *last >= 1_u64 << room.min(32) {
        return None;
    }
    let mut address: u64 = *last;
    for (i, n) in first.iter().enumerate() {
        address += n << (8 * (3 - i as u32));
    }
    let value = u32::try_from(address).ok()?;
    Some(value.to_be_bytes())
}

/// One part of an IPv4 address: `0x…` hexadecimal (`0x` alone is 0), `0…` octal, else decimal;
/// at most 32 bits (more is not an address).
fn ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(hex) = part.strip_prefix("0x") {
        (hex, 16)
    } else if part.len() > 1 && part.starts_with('0') {
        (part.get(1..)?, 8)
    } else {
        (part, 10)
    };
    if digits.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(digits, radix).ok().filter(|n| *n <= u64::from(u32::MAX))
}

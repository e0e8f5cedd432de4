//! The chain's hash: BLAKE3, written as 64 lower-case hex digits.

use std::fmt;
use std::str::FromStr;

/// A BLAKE3 digest. `Display` and `FromStr` use 64 lower-case hex digits, nothing else.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hash([u8; 32]);

impl Hash {
    /// The `prev_hash` of the first event: 32 zero bytes, 64 zeros in hex.
    pub const GENESIS: Hash = Hash([0; 32]);

    /// Wraps raw digest bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Hash(bytes)
    }

    /// The raw digest bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// `BLAKE3(prev ‖ body)`: the link of the chain.
    pub fn link(prev: &Hash, body: &[u8]) -> Hash {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&prev.0);
        hasher.update(body);
        Hash(*hasher.finalize().as_bytes())
    }

    /// Writes the 64 hex digits into `out`.
    pub fn write_hex(&self, out: &mut [u8; 64]) {
        let digit = |n: u8| if n < 10 { b'0' + n } else { b'a' + n - 10 };
        for (pair, byte) in out.chunks_exact_mut(2).zip(self.0) {
            if let [hi, lo] = pair {
                *hi = digit(byte >> 4);
                *lo = digit(byte & 0x0f);
            }
        }
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut hex = [0u8; 64];
        self.write_hex(&mut hex);
        // Only ASCII hex digits were written.
        f.write_str(std::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({self})")
    }
}

/// A string that is not 64 lower-case hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected 64 lower-case hex digits, found `{found}`")]
pub struct ParseHashError {
    found: String,
}

impl FromStr for Hash {
    type Err = ParseHashError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let error = || ParseHashError { found: s.chars().take(80).collect() };
        if s.len() != 64 {
            return Err(error());
        }
        let nibble = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(s.as_bytes().chunks_exact(2)) {
            let [hi, lo] = pair else { return Err(error()) };
            *byte = (nibble(*hi).ok_or_else(error)? << 4) | nibble(*lo).ok_or_else(error)?;
        }
        Ok(Hash(out))
    }
}

impl serde::Serialize for Hash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_the_hex() {
        let hash = Hash::from_bytes([0xab; 32]);
        assert_eq!(format!("{hash:?}"), format!("Hash({})", "ab".repeat(32)));
    }

    #[test]
    fn genesis_is_64_zeros() {
        assert_eq!(Hash::GENESIS.to_string(), "0".repeat(64));
    }

    #[test]
    fn hex_round_trips_and_matches_blake3() {
        let h = Hash::link(&Hash::GENESIS, b"body");
        let mut input = vec![0u8; 32];
        input.extend_from_slice(b"body");
        assert_eq!(h.to_string(), blake3::hash(&input).to_hex().as_str());
        assert_eq!(h.to_string().parse::<Hash>(), Ok(h));
    }

    #[test]
    fn parse_rejects_upper_case_short_and_non_hex() {
        let upper = "A".repeat(64);
        let short = "a".repeat(63);
        let bad = format!("{}g", "a".repeat(63));
        for s in [upper.as_str(), short.as_str(), bad.as_str(), ""] {
            assert!(s.parse::<Hash>().is_err(), "`{s}` must not parse");
        }
    }
}

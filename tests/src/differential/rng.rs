//! The generator's randomness: SplitMix64 (Steele, Lea and Flood), a few lines and no dependency,
//! so a case is the same on every machine and every version of the crate graph. A case's stream
//! is seeded from its (seed, batch, call) position alone: any case can be drawn again without
//! drawing the ones before it.

/// A SplitMix64 stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl Rng {
    /// The stream of the case at (`seed`, `batch`, `call`).
    pub fn at(seed: u64, batch: u64, call: u64) -> Rng {
        let mut rng = Rng(seed);
        let a = rng.next_u64() ^ batch.wrapping_mul(GOLDEN);
        let mut rng = Rng(a);
        let b = rng.next_u64() ^ call.wrapping_add(1).wrapping_mul(GOLDEN.rotate_left(17));
        Rng(b)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        usize::try_from(self.next_u64() % u64::try_from(n).unwrap_or(u64::MAX)).unwrap_or(0)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One item of `items` (`items` must not be empty: the tables are constants).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let at = self.below(items.len());
        &items[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_always_draws_the_same_stream_and_neighbours_differ() {
        let draw = |s, b, c| {
            let mut rng = Rng::at(s, b, c);
            (0..4).map(|_| rng.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 3, 2), draw(7, 3, 2));
        assert_ne!(draw(7, 3, 2), draw(7, 3, 3));
        assert_ne!(draw(7, 3, 2), draw(7, 4, 2));
        assert_ne!(draw(7, 3, 2), draw(8, 3, 2));
        let mut rng = Rng::at(1, 0, 0);
        assert!((0..1000).all(|_| rng.below(13) < 13));
        assert_eq!(Rng::at(1, 0, 0).below(0), 0);
    }
}

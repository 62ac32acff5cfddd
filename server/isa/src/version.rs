//! PTX ISA versions (`.version X.Y`) and their relation to CUDA toolkit releases.

use std::fmt;
use std::str::FromStr;

/// A PTX ISA version such as `8.6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxVersion {
    pub major: u8,
    pub minor: u8,
}

impl PtxVersion {
    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }

    /// The oldest PTX ISA version (1.0); used when the spec gives no version.
    pub const MIN: PtxVersion = PtxVersion::new(1, 0);
    /// The version of the spec this crate was built from.
    pub const SPEC: PtxVersion = PtxVersion::new(9, 1);

    /// Parse `"8.6"`. Returns `None` on anything else.
    ///
    /// The minor number is read as a decimal number of any width, as ptxas 13.5 reads it:
    /// `8.10` is major 8, minor 10 (newer than 8.8 in every comparison), `7.08` is 7.8. The
    /// spec (11.1.3) writes one digit after the point; see [`PtxVersion::ptxas_release`] for the
    /// release ptxas takes such a number for.
    pub fn parse(s: &str) -> Option<Self> {
        let (a, b) = s.trim().split_once('.')?;
        if a.is_empty() || b.is_empty() || !a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(Self::new(a.parse().ok()?, b.parse().ok()?))
    }

    /// The release ptxas 13.5 checks a `.version` against when it decides whether it supports
    /// it: major × 10 + minor, read back as a version (`8.10` → 9.0, `7.19` → 8.9, which does
    /// not exist, "Unsupported .version 7.19"). Measured with ptxas 13.5: `.version 8.10`,
    /// `7.20` and `8.15` are accepted, `7.19`, `8.80` and `9.10` are not, while the target and
    /// feature checks compare the version as written (`7.10` takes `.target sm_90`, which came
    /// with 7.8, and refuses `elect`, which came with 8.0). `None` past 25.5.
    pub fn ptxas_release(self) -> Option<PtxVersion> {
        let n = u16::from(self.major) * 10 + u16::from(self.minor);
        Some(Self::new(u8::try_from(n / 10).ok()?, (n % 10) as u8))
    }

    /// The CUDA toolkit release that first shipped this PTX ISA version, if known.
    pub fn cuda_version(self) -> Option<(u8, u8)> {
        PTX_CUDA.iter().find(|(p, _)| *p == self).map(|&(_, c)| c)
    }

    /// The newest PTX ISA version shipped with the given CUDA release (e.g. CUDA 12.8 -> 8.7).
    pub fn for_cuda(major: u8, minor: u8) -> Option<Self> {
        PTX_CUDA
            .iter()
            .filter(|(_, c)| *c <= (major, minor))
            .map(|&(p, _)| p)
            .max()
    }

    /// All PTX ISA versions known to this crate, oldest first.
    pub fn all() -> impl Iterator<Item = PtxVersion> {
        PTX_CUDA.iter().map(|&(p, _)| p)
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for PtxVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::parse(s).ok_or_else(|| format!("invalid PTX version `{s}`"))
    }
}

/// PTX ISA version -> CUDA release that introduced it. The spec itself does not list this
/// mapping; it follows the CUDA toolkit release history (PTX 9.2..9.5 are newer than the 9.1
/// spec but accepted by ptxas 13.5, see `tests/fixtures/ptxas`).
const PTX_CUDA: &[(PtxVersion, (u8, u8))] = &[
    (PtxVersion::new(1, 0), (1, 0)),
    (PtxVersion::new(1, 1), (1, 1)),
    (PtxVersion::new(1, 2), (2, 0)),
    (PtxVersion::new(1, 3), (2, 1)),
    (PtxVersion::new(1, 4), (2, 2)),
    (PtxVersion::new(1, 5), (2, 2)),
    (PtxVersion::new(2, 0), (3, 0)),
    (PtxVersion::new(2, 1), (3, 1)),
    (PtxVersion::new(2, 2), (3, 2)),
    (PtxVersion::new(2, 3), (4, 0)),
    (PtxVersion::new(3, 0), (4, 1)),
    (PtxVersion::new(3, 1), (5, 0)),
    (PtxVersion::new(3, 2), (5, 5)),
    (PtxVersion::new(4, 0), (6, 0)),
    (PtxVersion::new(4, 1), (6, 5)),
    (PtxVersion::new(4, 2), (7, 0)),
    (PtxVersion::new(4, 3), (7, 5)),
    (PtxVersion::new(5, 0), (8, 0)),
    (PtxVersion::new(6, 0), (9, 0)),
    (PtxVersion::new(6, 1), (9, 1)),
    (PtxVersion::new(6, 2), (9, 2)),
    (PtxVersion::new(6, 3), (10, 0)),
    (PtxVersion::new(6, 4), (10, 1)),
    (PtxVersion::new(6, 5), (10, 2)),
    (PtxVersion::new(7, 0), (11, 0)),
    (PtxVersion::new(7, 1), (11, 1)),
    (PtxVersion::new(7, 2), (11, 2)),
    (PtxVersion::new(7, 3), (11, 3)),
    (PtxVersion::new(7, 4), (11, 4)),
    (PtxVersion::new(7, 5), (11, 5)),
    (PtxVersion::new(7, 6), (11, 6)),
    (PtxVersion::new(7, 7), (11, 7)),
    (PtxVersion::new(7, 8), (11, 8)),
    (PtxVersion::new(8, 0), (12, 0)),
    (PtxVersion::new(8, 1), (12, 1)),
    (PtxVersion::new(8, 2), (12, 2)),
    (PtxVersion::new(8, 3), (12, 3)),
    (PtxVersion::new(8, 4), (12, 4)),
    (PtxVersion::new(8, 5), (12, 5)),
    (PtxVersion::new(8, 6), (12, 7)),
    (PtxVersion::new(8, 7), (12, 8)),
    (PtxVersion::new(8, 8), (12, 9)),
    (PtxVersion::new(9, 0), (13, 0)),
    (PtxVersion::new(9, 1), (13, 1)),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_order() {
        let v = PtxVersion::parse("8.6").unwrap();
        assert_eq!(v, PtxVersion::new(8, 6));
        assert_eq!(PtxVersion::parse("8.10"), Some(PtxVersion::new(8, 10)));
        assert!(PtxVersion::parse("8.10").unwrap() > PtxVersion::new(8, 8));
        assert_eq!(
            PtxVersion::new(8, 10).ptxas_release(),
            Some(PtxVersion::new(9, 0))
        );
        assert_eq!(PtxVersion::parse("7.08"), Some(PtxVersion::new(7, 8)));
        assert!(PtxVersion::parse("8.+1").is_none());
        assert!(PtxVersion::parse("8.8.0").is_none());
        assert!(PtxVersion::parse("x").is_none());
        assert!(PtxVersion::new(8, 8) < PtxVersion::new(9, 0));
        assert_eq!(v.to_string(), "8.6");
    }

    #[test]
    fn cuda_mapping() {
        assert_eq!(PtxVersion::new(9, 1).cuda_version(), Some((13, 1)));
        assert_eq!(PtxVersion::for_cuda(12, 6), Some(PtxVersion::new(8, 5)));
        assert_eq!(PtxVersion::for_cuda(12, 8), Some(PtxVersion::new(8, 7)));
        let all: Vec<_> = PtxVersion::all().collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }
}

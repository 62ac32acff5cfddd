//! The map between a virtual PTX document's bytes and the host file's bytes.
//!
//! A map is a sorted list of segments. An *exact* segment maps byte for byte (plain text of a
//! literal); an *atomic* segment maps a whole virtual range onto a whole host range (an escape
//! sequence such as `\n`, or a placeholder `%0` replaced by its register name). Bytes outside
//! every segment (the generated prologue and declarations) have no host position.

use ptx_syntax::TextRange;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Segment {
    virt: TextRange,
    host: TextRange,
    exact: bool,
}

/// See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    segments: Vec<Segment>,
}

impl SourceMap {
    /// Maps `len` bytes at `virt_start` one to one onto the host bytes at `host_start`.
    pub fn push_exact(&mut self, virt_start: usize, host_start: usize, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(last) = self.segments.last_mut() {
            if last.exact && last.virt.end == virt_start && last.host.end == host_start {
                last.virt.end += len;
                last.host.end += len;
                return;
            }
        }
        self.segments.push(Segment {
            virt: virt_start..virt_start + len,
            host: host_start..host_start + len,
            exact: true,
        });
    }

    /// Maps the whole virtual range onto the whole host range.
    pub fn push_atomic(&mut self, virt: TextRange, host: TextRange) {
        self.segments.push(Segment {
            virt,
            host,
            exact: false,
        });
    }

    /// Appends `other`'s segments with their virtual offsets shifted by `shift`, keeping
    /// only those that fall inside `virt_range` of `other` (used when a decoded template is
    /// copied piece by piece into a virtual document).
    pub fn push_slice(&mut self, other: &SourceMap, virt_range: TextRange, shift: isize) {
        for s in &other.segments {
            let start = s.virt.start.max(virt_range.start);
            let end = s.virt.end.min(virt_range.end);
            if start >= end {
                continue;
            }
            let to = |v: usize| (v as isize + shift) as usize;
            if s.exact {
                let host_start = s.host.start + (start - s.virt.start);
                self.push_exact(to(start), host_start, end - start);
            } else {
                self.push_atomic(to(start)..to(end), s.host.clone());
            }
        }
    }

    /// The same map with every host offset moved by `shift` (a statement re-parsed out of
    /// its context).
    pub fn with_host_shift(&self, shift: isize) -> SourceMap {
        let to = |v: usize| (v as isize + shift) as usize;
        SourceMap {
            segments: self
                .segments
                .iter()
                .map(|s| Segment {
                    virt: s.virt.clone(),
                    host: to(s.host.start)..to(s.host.end),
                    exact: s.exact,
                })
                .collect(),
        }
    }

    fn segment_at(&self, virt: usize) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.virt.end <= virt);
        self.segments.get(i).filter(|s| s.virt.start <= virt)
    }

    /// The host position of a virtual offset (an offset inside an atomic segment maps to the
    /// segment's host start).
    pub fn offset_to_host(&self, virt: usize) -> Option<usize> {
        let s = self.segment_at(virt)?;
        Some(if s.exact {
            s.host.start + (virt - s.virt.start)
        } else {
            s.host.start
        })
    }

    /// The host range of a virtual range, or `None` when its start is not mapped (generated
    /// text). An end that falls outside the mapped text is clamped to the start's segment.
    pub fn range_to_host(&self, virt: TextRange) -> Option<TextRange> {
        let first = self.segment_at(virt.start)?;
        let start = if first.exact {
            first.host.start + (virt.start - first.virt.start)
        } else {
            first.host.start
        };
        if virt.end <= virt.start {
            return Some(start..start);
        }
        let last = self.segment_at(virt.end - 1).unwrap_or(first);
        let end = if last.exact {
            last.host.start + (virt.end - last.virt.start)
        } else {
            last.host.end
        };
        Some(start..end.max(start))
    }

    /// Like [`range_to_host`](Self::range_to_host) for ranges known to be mapped (tests).
    pub fn to_host(&self, virt: TextRange) -> TextRange {
        self.range_to_host(virt).unwrap_or(0..0)
    }

    /// The virtual offset of a host offset, if the host offset lies in mapped text. A host
    /// offset just after the last mapped byte of a segment (a cursor at the end of a word)
    /// maps to the end of that segment.
    pub fn offset_to_virtual(&self, host: usize) -> Option<usize> {
        let mut after = None;
        for s in &self.segments {
            if s.host.start <= host && host < s.host.end {
                return Some(if s.exact {
                    s.virt.start + (host - s.host.start)
                } else {
                    s.virt.start
                });
            }
            if s.host.end == host {
                after = Some(s.virt.end);
            }
        }
        after
    }

    /// The host range covered by the map.
    pub fn host_extent(&self) -> Option<TextRange> {
        let start = self.segments.iter().map(|s| s.host.start).min()?;
        let end = self.segments.iter().map(|s| s.host.end).max()?;
        Some(start..end)
    }
}

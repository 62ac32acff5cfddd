//! Memory of a run: global buffers, constant and parameter banks, the CTA's
//! shared memory, and each thread's local and call-parameter areas.
//!
//! Generic addresses map state-space windows onto one 64-bit space: global
//! buffers are identity-mapped, and shared, local, param and const memory
//! each appear in a 4 GiB window of their own, as `cvta` produces them.

use crate::ir::Space;

/// Where the module's own `.global` variables live.
pub const GLOBAL_STATIC_BASE: u64 = 0x7e00_0000_0000;
/// Where buffers given as kernel arguments are allocated.
pub const GLOBAL_BUFFER_BASE: u64 = 0x7f00_0000_0000;
pub const SHARED_WINDOW: u64 = 0x7d00_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x7c00_0000_0000;
pub const PARAM_WINDOW: u64 = 0x7b00_0000_0000;
pub const CONST_WINDOW: u64 = 0x7a00_0000_0000;
const WINDOW_SIZE: u64 = 1 << 32;
/// Parameter-space addresses at and above this are the calling thread's own
/// function-parameter area; below are the kernel's parameters.
pub const FUNC_PARAM_BASE: u64 = 0x8000_0000;
/// The address of function `i` (`mov.u64 %rd, f;`, for `call` through a
/// register) is this plus `i`: not in any state space.
pub const FUNCTION_BASE: u64 = 0x7900_0000_0000;
/// Shared-space offset of the dynamic shared memory (`.extern .shared` arrays
/// without a size): far above any static allocation, so that the static
/// layout can be fixed before the launch chooses the dynamic size.
pub const DYNAMIC_SHARED_BASE: u64 = 0x0100_0000;
/// Shared memory one CTA may use, static and dynamic together: the H100's
/// opt-in maximum per block (227 KiB).
pub const MAX_SHARED_PER_CTA: usize = 227 << 10;

/// A contiguous global allocation.
#[derive(Debug, Clone)]
pub struct Region {
    pub base: u64,
    pub bytes: Vec<u8>,
}

/// All memory a CTA can reach.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// Global allocations, sorted by base address.
    pub global: Vec<Region>,
    pub constant: Vec<u8>,
    pub kernel_params: Vec<u8>,
    pub shared: Vec<u8>,
    /// The CTA's dynamic shared memory (at [`DYNAMIC_SHARED_BASE`]).
    pub dynamic_shared: Vec<u8>,
    /// The name of the `.extern .shared` variable, for fault messages.
    pub dynamic_shared_name: String,
    pub local: Vec<Vec<u8>>,
    pub func_params: Vec<Vec<u8>>,
    /// Ranges a debugger watches (data breakpoints); `None` when none is
    /// set, so that a run without them pays one test per access.
    pub watch: Option<Box<Watch>>,
    /// The running CTA's rank in its cluster.
    pub rank: u32,
    /// Static and dynamic shared memory of each CTA of the cluster by rank,
    /// while another CTA runs (the running CTA's own are `shared` and
    /// `dynamic_shared`); empty for clusters of one.
    pub peer_shared: Vec<(Vec<u8>, Vec<u8>)>,
}

/// A watched range: global memory (`space` Global, by address) or the CTA's
/// shared memory (`space` Shared, by shared-space offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watched {
    pub space: Space,
    pub start: u64,
    pub len: u64,
    /// Which accesses count.
    pub reads: bool,
    pub writes: bool,
}

/// An access that touched a watched range: its index, the thread, and
/// whether it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    pub watched: usize,
    pub thread: usize,
    pub write: bool,
}

/// The watched ranges and the accesses that touched them since the
/// debugger last looked.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    pub ranges: Vec<Watched>,
    pub touches: Vec<Touch>,
}

/// Where a shared-memory address keeps the CTA rank it names: `mapa` sets
/// bits 26..31 to the rank plus one (zero: the running CTA), above every
/// static and dynamic shared-memory offset.
pub const CLUSTER_RANK_SHIFT: u32 = 26;

/// The CTA rank a `.shared::cluster` offset names (`None`: the running CTA)
/// and the offset inside that CTA's shared memory.
pub fn split_cluster(offset: u64) -> (Option<u32>, u64) {
    let tag = (offset >> CLUSTER_RANK_SHIFT) as u32;
    let inside = offset & ((1 << CLUSTER_RANK_SHIFT) - 1);
    if tag == 0 {
        (None, inside)
    } else {
        (Some(tag - 1), inside)
    }
}

/// The `.shared::cluster` offset of `offset` (a CTA's own) in CTA `rank`.
pub fn in_rank(offset: u64, rank: u32) -> u64 {
    (offset & ((1 << CLUSTER_RANK_SHIFT) - 1)) | u64::from(rank + 1) << CLUSTER_RANK_SHIFT
}

impl Memory {
    /// Allocates a global buffer after the existing ones and returns its address.
    pub fn allocate(&mut self, bytes: Vec<u8>) -> u64 {
        let base = self
            .global
            .iter()
            .filter(|r| r.base >= GLOBAL_BUFFER_BASE)
            .map(|r| r.base + r.bytes.len() as u64)
            .max()
            .map(|end| (end + 256).div_ceil(256) * 256)
            .unwrap_or(GLOBAL_BUFFER_BASE);
        self.global.push(Region { base, bytes });
        base
    }

    /// Records an access of `size` bytes at `addr` of `space` by `thread` if
    /// it touches a watched range (data breakpoints).
    #[inline(always)]
    pub fn note(&mut self, thread: usize, space: Space, addr: u64, size: usize, write: bool) {
        if let Some(watch) = &mut self.watch {
            watch.note(thread, space, addr, size, write);
        }
    }

    /// The bytes `[addr, addr + size)` of `space` as seen by `thread`, after
    /// checking alignment (`align` bytes) and bounds.
    pub fn slice(
        &mut self,
        thread: usize,
        space: Space,
        addr: u64,
        size: usize,
        align: usize,
    ) -> Result<&mut [u8], String> {
        if align > 1 && !addr.is_multiple_of(align as u64) {
            return Err(format!(
                "misaligned {}-byte access at {} address {addr:#x}",
                size,
                space.name()
            ));
        }
        let (space, offset) = resolve(space, addr);
        let out_of_bounds = || {
            format!(
                "{size}-byte access at {} address {addr:#x} is out of bounds",
                space.name()
            )
        };
        let size64 = size as u64;
        let area: &mut [u8] = match space {
            Space::Global | Space::Generic => {
                let Some(region) = self
                    .global
                    .iter_mut()
                    .find(|r| offset >= r.base && offset - r.base < r.bytes.len() as u64)
                else {
                    return Err(out_of_bounds());
                };
                let start = offset - region.base;
                if start + size64 > region.bytes.len() as u64 {
                    return Err(out_of_bounds());
                }
                return Ok(&mut region.bytes[start as usize..(start + size64) as usize]);
            }
            Space::Shared => {
                let (rank, offset) = split_cluster(offset);
                let own = self.rank;
                let ctas = self.peer_shared.len().max(1);
                let (shared, dynamic) = match rank {
                    Some(r) if r != own => match self.peer_shared.get_mut(r as usize) {
                        Some((shared, dynamic)) => (shared, dynamic),
                        None => {
                            return Err(format!(
                                "shared::cluster address {addr:#x} is in CTA rank {r}, outside \
                                 the cluster of {ctas} CTAs"
                            ))
                        }
                    },
                    _ => (&mut self.shared, &mut self.dynamic_shared),
                };
                if offset >= DYNAMIC_SHARED_BASE {
                    let start = offset - DYNAMIC_SHARED_BASE;
                    let len = dynamic.len();
                    if start.checked_add(size64).is_none_or(|end| end > len as u64) {
                        let name = if self.dynamic_shared_name.is_empty() {
                            "dynamic shared memory".to_owned()
                        } else {
                            format!("`{}`", self.dynamic_shared_name)
                        };
                        return Err(format!(
                            "{size}-byte access at offset {start} of {name} is out of bounds: \
                             the launch gives it {len} bytes of dynamic shared memory (--dynamic-smem)"
                        ));
                    }
                    return Ok(&mut dynamic[start as usize..(start + size64) as usize]);
                }
                if offset
                    .checked_add(size64)
                    .is_none_or(|end| end > shared.len() as u64)
                {
                    return Err(out_of_bounds());
                }
                return Ok(&mut shared[offset as usize..(offset + size64) as usize]);
            }
            Space::Const => &mut self.constant,
            Space::Local => match self.local.get_mut(thread) {
                Some(local) => local,
                None => return Err(out_of_bounds()),
            },
            Space::Param if offset >= FUNC_PARAM_BASE => {
                let Some(params) = self.func_params.get_mut(thread) else {
                    return Err(out_of_bounds());
                };
                let start = offset - FUNC_PARAM_BASE;
                if start
                    .checked_add(size64)
                    .is_none_or(|end| end > params.len() as u64)
                {
                    return Err(out_of_bounds());
                }
                return Ok(&mut params[start as usize..(start + size64) as usize]);
            }
            Space::Param => &mut self.kernel_params,
        };
        if offset
            .checked_add(size64)
            .is_none_or(|end| end > area.len() as u64)
        {
            return Err(out_of_bounds());
        }
        Ok(&mut area[offset as usize..(offset + size64) as usize])
    }

    /// Loads `size` (≤ 8) bytes as a little-endian integer.
    pub fn load(
        &mut self,
        thread: usize,
        space: Space,
        addr: u64,
        size: usize,
    ) -> Result<u64, String> {
        self.note(thread, space, addr, size, false);
        let bytes = self.slice(thread, space, addr, size, size)?;
        let mut buf = [0u8; 8];
        buf[..size.min(8)].copy_from_slice(&bytes[..size.min(8)]);
        Ok(u64::from_le_bytes(buf))
    }

    /// Stores the low `size` (≤ 8) bytes of `value`.
    pub fn store(
        &mut self,
        thread: usize,
        space: Space,
        addr: u64,
        size: usize,
        value: u64,
    ) -> Result<(), String> {
        self.note(thread, space, addr, size, true);
        let bytes = self.slice(thread, space, addr, size, size)?;
        let n = size.min(8);
        bytes[..n].copy_from_slice(&value.to_le_bytes()[..n]);
        Ok(())
    }
}

impl Watch {
    #[cold]
    fn note(&mut self, thread: usize, space: Space, addr: u64, size: usize, write: bool) {
        let (space, offset) = resolve(space, addr);
        let space = if space == Space::Generic {
            Space::Global
        } else {
            space
        };
        let end = offset.saturating_add(size as u64);
        for (watched, range) in self.ranges.iter().enumerate() {
            if range.space == space
                && offset < range.start + range.len
                && range.start < end
                && if write { range.writes } else { range.reads }
            {
                self.touches.push(Touch {
                    watched,
                    thread,
                    write,
                });
            }
        }
    }
}

/// Maps a generic address into its state space; other spaces pass through.
pub fn resolve(space: Space, addr: u64) -> (Space, u64) {
    if space != Space::Generic {
        return (space, addr);
    }
    for (window, space) in [
        (SHARED_WINDOW, Space::Shared),
        (LOCAL_WINDOW, Space::Local),
        (PARAM_WINDOW, Space::Param),
        (CONST_WINDOW, Space::Const),
    ] {
        if addr >= window && addr - window < WINDOW_SIZE {
            return (space, addr - window);
        }
    }
    (Space::Global, addr)
}

/// The generic address of `addr` in `space` (`cvta.space`).
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared => SHARED_WINDOW + (addr & 0xffff_ffff),
        Space::Local => LOCAL_WINDOW + (addr & 0xffff_ffff),
        Space::Param => PARAM_WINDOW + (addr & 0xffff_ffff),
        Space::Const => CONST_WINDOW + (addr & 0xffff_ffff),
        Space::Global | Space::Generic => addr,
    }
}

/// The `space` address of generic `addr` (`cvta.to.space`), if it is in that window.
pub fn from_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Global | Space::Generic => addr,
        _ => {
            let (resolved, offset) = resolve(Space::Generic, addr);
            if resolved == space {
                offset
            } else {
                addr
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_windows_round_trip() {
        for space in [Space::Shared, Space::Local, Space::Param, Space::Const] {
            let generic = to_generic(space, 0x40);
            assert_eq!(resolve(Space::Generic, generic), (space, 0x40));
            assert_eq!(from_generic(space, generic), 0x40);
        }
        assert_eq!(
            resolve(Space::Generic, GLOBAL_BUFFER_BASE),
            (Space::Global, GLOBAL_BUFFER_BASE)
        );
    }

    #[test]
    fn bounds_and_alignment_are_checked() {
        let mut memory = Memory::default();
        let base = memory.allocate(vec![0; 8]);
        assert!(memory.store(0, Space::Global, base + 4, 4, 7).is_ok());
        assert_eq!(memory.load(0, Space::Global, base + 4, 4), Ok(7));
        assert!(memory
            .load(0, Space::Global, base + 8, 4)
            .unwrap_err()
            .contains("out of bounds"));
        assert!(memory
            .load(0, Space::Global, base + 2, 4)
            .unwrap_err()
            .contains("misaligned"));
        assert!(memory.load(0, Space::Shared, 0, 4).is_err());
    }
}

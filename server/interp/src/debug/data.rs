//! Data breakpoints: stop when a warp writes (or reads) a watched range of
//! global or shared memory, or a watched register of one lane.
//!
//! Memory accesses are seen through [`Memory::note`], which records the
//! accesses that touch a watched range while any is set (and costs one test
//! per access otherwise). Registers are checked around the issue of the
//! watched warp only: an instruction whose destinations name the register
//! (or whose sources do, for reads), or any change of its value (a `call`
//! returning into it), is an access. The session stops right after the
//! accessing instruction, before the warp issues another, with the old and
//! the new value and the line of the access in the stop's description.

use crate::engine::Machine;
use crate::ir::{mask, Space, Src};
use crate::memory::{resolve, Touch, Watch, Watched, DYNAMIC_SHARED_BASE};

use super::{compile, format_as, hex, HitCondition, Outcome, Resumed, Session, StopReason, View};

/// What kinds of access a data breakpoint stops at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
}

impl Access {
    /// The DAP names: `read`, `write`, `readWrite`.
    pub fn parse(word: &str) -> Option<Access> {
        Some(match word {
            "read" => Access::Read,
            "write" => Access::Write,
            "readWrite" => Access::ReadWrite,
            _ => return None,
        })
    }

    fn reads(self) -> bool {
        self != Access::Write
    }

    fn writes(self) -> bool {
        self != Access::Read
    }
}

/// A data breakpoint as a client asks for it.
#[derive(Debug, Clone)]
pub struct DataBreakpointSpec {
    /// An id from [`Session::data_info`].
    pub data_id: String,
    pub access: Access,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
}

/// What [`Session::data_info`] found watchable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataInfo {
    /// The id to set the breakpoint with.
    pub data_id: String,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Target {
    /// `len` bytes of global (by address) or shared memory (by offset),
    /// shown as `view`.
    Memory {
        space: Space,
        start: u64,
        len: usize,
        view: View,
    },
    /// Register `reg` of `lane` of warp `warp` (in every CTA).
    Register { reg: u32, warp: usize, lane: u32 },
}

#[derive(Debug, Clone)]
pub(super) struct DataBreakpoint {
    id: usize,
    target: Target,
    label: String,
    access: Access,
    condition: Option<super::Expr>,
    hit: Option<HitCondition>,
    hits: u64,
    /// The watched bytes (memory) or bits (register) as last seen.
    last: Vec<u8>,
}

/// A watched register's value before an issue of its warp.
pub(super) struct Probe {
    index: usize,
    old: u64,
    /// The instruction names the register as a destination, as a source,
    /// for a lane that runs it.
    writes: bool,
    reads: bool,
}

fn encode(target: &Target, label: &str) -> String {
    match target {
        Target::Memory {
            space,
            start,
            len,
            view,
        } => format!(
            "mem:{}:{start:#x}:{len}:{}|{label}",
            space.name(),
            view.name()
        ),
        Target::Register { reg, warp, lane } => format!("reg:{reg}:{warp}:{lane}|{label}"),
    }
}

fn decode(id: &str) -> Option<(Target, String)> {
    let (head, label) = id.split_once('|')?;
    let parts: Vec<&str> = head.split(':').collect();
    let target = match parts.as_slice() {
        ["mem", space, start, len, view] => Target::Memory {
            space: match *space {
                "global" => Space::Global,
                "shared" => Space::Shared,
                _ => return None,
            },
            start: u64::from_str_radix(start.strip_prefix("0x")?, 16).ok()?,
            len: len.parse().ok().filter(|&l| (1..=4096).contains(&l))?,
            view: View::parse(view)?,
        },
        ["reg", reg, warp, lane] => Target::Register {
            reg: reg.parse().ok()?,
            warp: warp.parse().ok()?,
            lane: lane.parse().ok().filter(|&l| l < 32)?,
        },
        _ => return None,
    };
    Some((target, label.to_owned()))
}

fn src_reads(src: &Src, reg: u32) -> bool {
    match src {
        Src::Reg(r) | Src::NotReg(r) => *r == reg,
        Src::Vector(items) => items.iter().any(|s| src_reads(s, reg)),
        Src::Addr(a) => a.base == Some(reg),
        _ => false,
    }
}

fn dst_writes(dst: &crate::ir::Dst, reg: u32) -> bool {
    match dst {
        crate::ir::Dst::Reg(r) => *r == reg,
        crate::ir::Dst::Vector(items) => items.iter().any(|d| dst_writes(d, reg)),
        crate::ir::Dst::Sink => false,
    }
}

/// The value of watched bytes as text: one element, or a list.
fn show(bytes: &[u8], view: View) -> String {
    let size = view.bytes();
    let items: Vec<String> = bytes
        .chunks(size)
        .map(|c| {
            let mut buf = [0u8; 8];
            buf[..c.len()].copy_from_slice(c);
            let bits = u64::from_le_bytes(buf);
            match view {
                View::Hex => hex(bits, size as u32 * 8),
                _ => view.format(bits),
            }
        })
        .collect();
    if items.len() == 1 {
        items[0].clone()
    } else {
        format!("[{}]", items.join(", "))
    }
}

fn read_target(m: &mut Machine<'_>, target: &Target) -> Vec<u8> {
    match *target {
        Target::Memory {
            space, start, len, ..
        } => {
            let addr = match space {
                Space::Shared => crate::memory::to_generic(Space::Shared, start),
                _ => start,
            };
            m.mem
                .slice(0, Space::Generic, addr, len, 1)
                .map(|b| b.to_vec())
                .unwrap_or_default()
        }
        Target::Register { reg, warp, lane } => m
            .warps
            .get(warp)
            .and_then(|w| w.regs.get(reg as usize * 32 + lane as usize))
            .map_or_else(Vec::new, |bits| bits.to_le_bytes().to_vec()),
    }
}

impl Session<'_> {
    /// Whether `expr` (a register, `[ADDR]` with a view and count, evaluated
    /// for `lane` of warp `w` at `pc`) can be watched, and the id to watch
    /// it by; `label` names it in stop descriptions (the expression when
    /// `None`).
    pub fn data_info(
        &mut self,
        expr: &str,
        label: Option<&str>,
        w: usize,
        lane: u32,
        pc: u32,
    ) -> Result<DataInfo, String> {
        if w >= self.m.warps.len() {
            return Err(format!("no warp {w}"));
        }
        let watch = super::compile_watch(expr, &self.names(pc))?;
        let lane = watch.lane.unwrap_or(lane);
        let label = label.unwrap_or(expr).trim().to_owned();
        let (target, description) = if let Some(reg) = watch.reg {
            let name = &self.m.prog.regs[reg as usize].name;
            (
                Target::Register { reg, warp: w, lane },
                format!("{name} of warp {w} lane {lane}"),
            )
        } else if watch.memory {
            let addr = self.eval(&watch.expr, w, lane)?.int() as u64;
            let view = watch.view.unwrap_or(View::Hex);
            let len = view.bytes() * watch.count.unwrap_or(1);
            // The range must be readable now (and so a place that exists).
            self.read(w, lane, addr, len)?;
            let (space, start) = resolve(Space::Generic, addr);
            let space = match space {
                Space::Generic | Space::Global => Space::Global,
                Space::Shared => Space::Shared,
                other => {
                    return Err(format!(
                        "{} memory cannot be watched: only global and shared memory",
                        other.name()
                    ))
                }
            };
            let place = match space {
                Space::Shared if start >= DYNAMIC_SHARED_BASE => {
                    format!("dynamic shared offset {:#x}", start - DYNAMIC_SHARED_BASE)
                }
                Space::Shared => format!("shared offset {start:#x}"),
                _ => format!("{addr:#x}"),
            };
            (
                Target::Memory {
                    space,
                    start,
                    len,
                    view,
                },
                format!("{label} ({len} bytes at {place})"),
            )
        } else {
            return Err(format!(
                "`{expr}` is a value, not a place: watch a register or memory `[ADDR]`"
            ));
        };
        Ok(DataInfo {
            data_id: encode(&target, &label),
            description,
        })
    }

    /// Replaces the data breakpoints.
    pub fn set_data_breakpoints(
        &mut self,
        specs: &[DataBreakpointSpec],
    ) -> Vec<super::BreakpointState> {
        self.data.clear();
        let mut states = Vec::new();
        for spec in specs {
            let id = self.next_id;
            self.next_id += 1;
            let placed = self.data_breakpoint(id, spec);
            states.push(super::BreakpointState {
                id,
                verified: placed.is_ok(),
                line: 0,
                message: placed.err(),
            });
        }
        self.rewatch();
        states
    }

    fn data_breakpoint(&mut self, id: usize, spec: &DataBreakpointSpec) -> Result<(), String> {
        let (target, label) = decode(&spec.data_id)
            .ok_or_else(|| format!("`{}` is not a data id of this session", spec.data_id))?;
        if let Target::Register { reg, warp, .. } = target {
            if reg as usize >= self.m.prog.regs.len() || warp >= self.m.warps.len() {
                return Err(format!(
                    "`{}` names no register of this launch",
                    spec.data_id
                ));
            }
        }
        let names = self.names(self.m.prog.functions[self.m.prog.main].start);
        let condition = match spec.condition.as_deref().map(str::trim) {
            Some(c) if !c.is_empty() => {
                Some(compile(c, &names).map_err(|e| format!("condition: {e}"))?)
            }
            _ => None,
        };
        let hit = match spec.hit_condition.as_deref().map(str::trim) {
            Some(h) if !h.is_empty() => Some(HitCondition::parse(h)?),
            _ => None,
        };
        let last = read_target(&mut self.m, &target);
        self.data.push(DataBreakpoint {
            id,
            target,
            label,
            access: spec.access,
            condition,
            hit,
            hits: 0,
            last,
        });
        Ok(())
    }

    /// Hands the watched memory ranges to the machine's memory.
    fn rewatch(&mut self) {
        let ranges: Vec<Watched> = self
            .data
            .iter()
            .filter_map(|b| match b.target {
                Target::Memory {
                    space, start, len, ..
                } => Some(Watched {
                    space,
                    start,
                    len: len as u64,
                    reads: b.access.reads(),
                    writes: b.access.writes(),
                }),
                Target::Register { .. } => None,
            })
            .collect();
        self.m.mem.watch = (!ranges.is_empty()).then(|| {
            Box::new(Watch {
                ranges,
                touches: Vec::new(),
            })
        });
    }

    /// The watched values as they are now (after a new CTA cleared its
    /// shared memory and registers).
    pub(super) fn refresh_data(&mut self) {
        for i in 0..self.data.len() {
            self.data[i].last = read_target(&mut self.m, &self.data[i].target);
        }
    }

    /// The watched registers of warp `w` before it issues at `pc` with
    /// lanes `at`.
    pub(super) fn probe(&self, w: usize, pc: u32, at: u32) -> Vec<Probe> {
        let Some(inst) = self.m.prog.insts.get(pc as usize) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (index, b) in self.data.iter().enumerate() {
            let Target::Register { reg, warp, lane } = b.target else {
                continue;
            };
            if warp != w || at >> lane & 1 == 0 {
                continue;
            }
            let runs = self.m.guarded(w, inst, at) >> lane & 1 == 1;
            // A `ret` writing a call's results shows as a change of value.
            let writes = runs && inst.dst.iter().any(|d| dst_writes(d, reg));
            let reads = inst.guard.is_some_and(|(g, _)| g == reg)
                || (runs && inst.src.iter().any(|s| src_reads(s, reg)));
            out.push(Probe {
                index,
                old: self.m.warps[w].regs[reg as usize * 32 + lane as usize],
                writes,
                reads,
            });
        }
        out
    }

    /// After warp `w` issued the instruction at `pc`: the stop for the data
    /// breakpoints it touched, if any stops.
    pub(super) fn data_hit(
        &mut self,
        w: usize,
        pc: u32,
        probes: Vec<Probe>,
        logs: Vec<String>,
    ) -> Result<Resumed, Vec<String>> {
        let touches: Vec<Touch> = match &mut self.m.mem.watch {
            Some(watch) if !watch.touches.is_empty() => std::mem::take(&mut watch.touches),
            _ => Vec::new(),
        };
        if touches.is_empty() && probes.is_empty() {
            return Err(logs);
        }
        // (breakpoint index, lane, wrote)
        let mut accessed: Vec<(usize, u32, bool)> = Vec::new();
        let memory: Vec<usize> = (0..self.data.len())
            .filter(|&i| matches!(self.data[i].target, Target::Memory { .. }))
            .collect();
        for t in touches {
            let Some(&index) = memory.get(t.watched) else {
                continue;
            };
            let lane = (t.thread % 32) as u32;
            match accessed.iter_mut().find(|a| a.0 == index) {
                Some(a) => a.2 |= t.write,
                None => accessed.push((index, lane, t.write)),
            }
        }
        for p in probes {
            let b = &self.data[p.index];
            let Target::Register { reg, lane, .. } = b.target else {
                continue;
            };
            let new = self.m.warps[w].regs[reg as usize * 32 + lane as usize];
            let changed = new != p.old;
            let wrote = (p.writes || changed) && b.access.writes();
            let read = p.reads && b.access.reads();
            if wrote || read {
                accessed.push((p.index, lane, wrote));
            }
        }
        let mut ids = Vec::new();
        let mut texts = Vec::new();
        let mut stop_lane = None;
        let line = self.m.prog.line_of(pc);
        let cta = self.m.launch.ctaid;
        for (index, lane, wrote) in accessed {
            let now = read_target(&mut self.m, &self.data[index].target);
            let old = std::mem::replace(&mut self.data[index].last, now.clone());
            if let Some(c) = self.data[index].condition.clone() {
                if !self.eval(&c, w, lane).is_ok_and(super::Val::truthy) {
                    continue;
                }
            }
            let b = &mut self.data[index];
            b.hits += 1;
            if b.hit.is_some_and(|h| !h.admits(b.hits)) {
                continue;
            }
            let value = |bytes: &[u8]| match &b.target {
                Target::Memory { view, .. } => show(bytes, *view),
                Target::Register { reg, .. } => {
                    let mut buf = [0u8; 8];
                    buf[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
                    let info = &self.m.prog.regs[*reg as usize];
                    format_as(u64::from_le_bytes(buf) & mask(info.bits()), info.ty)
                }
            };
            let by = format!(
                "line {line} (cta ({},{},{}) warp {w} lane {lane})",
                cta[0], cta[1], cta[2]
            );
            texts.push(if wrote {
                format!(
                    "{} written by {by}: {} → {}",
                    b.label,
                    value(&old),
                    value(&now)
                )
            } else {
                format!("{} read by {by}: {}", b.label, value(&now))
            });
            ids.push(b.id);
            stop_lane.get_or_insert(lane);
        }
        let Some(lane) = stop_lane else {
            return Err(logs);
        };
        Ok(Resumed {
            outcome: Outcome::Stopped {
                reason: StopReason::Data {
                    ids,
                    description: texts.join("; "),
                },
                warp: w,
                lane,
            },
            logs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_ids_round_trip() {
        for target in [
            Target::Memory {
                space: Space::Shared,
                start: 0x40,
                len: 8,
                view: View::F32,
            },
            Target::Register {
                reg: 3,
                warp: 1,
                lane: 7,
            },
        ] {
            let id = encode(&target, "buf[2] | x");
            assert_eq!(decode(&id), Some((target, "buf[2] | x".to_owned())));
        }
        assert_eq!(decode("mem:local:0x0:4:u32|x"), None);
        assert_eq!(decode("reg:1:2:32|x"), None);
        assert_eq!(decode("nonsense"), None);
    }
}

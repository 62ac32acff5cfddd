//! The pre-decoded program: types, operands and instructions in a compact
//! form that the engine executes without looking at text again.

use ptx_syntax::TextRange;

use crate::softfloat::{self, Format, Rounding};

/// A PTX scalar (or packed) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    F32,
    F64,
    E4m3,
    E5m2,
    E4m3x2,
    E5m2x2,
    U16x2,
    S16x2,
}

impl Ty {
    pub fn parse(word: &str) -> Option<Ty> {
        Some(match word {
            "pred" => Ty::Pred,
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "b128" => Ty::B128,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            "tf32" => Ty::Tf32,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "e4m3" => Ty::E4m3,
            "e5m2" => Ty::E5m2,
            "e4m3x2" => Ty::E4m3x2,
            "e5m2x2" => Ty::E5m2x2,
            "u16x2" => Ty::U16x2,
            "s16x2" => Ty::S16x2,
            _ => return None,
        })
    }

    /// The type's name without its dot.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Pred => "pred",
            Ty::B8 => "b8",
            Ty::B16 => "b16",
            Ty::B32 => "b32",
            Ty::B64 => "b64",
            Ty::B128 => "b128",
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::S8 => "s8",
            Ty::S16 => "s16",
            Ty::S32 => "s32",
            Ty::S64 => "s64",
            Ty::F16 => "f16",
            Ty::F16x2 => "f16x2",
            Ty::Bf16 => "bf16",
            Ty::Bf16x2 => "bf16x2",
            Ty::Tf32 => "tf32",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::E4m3 => "e4m3",
            Ty::E5m2 => "e5m2",
            Ty::E4m3x2 => "e4m3x2",
            Ty::E5m2x2 => "e5m2x2",
            Ty::U16x2 => "u16x2",
            Ty::S16x2 => "s16x2",
        }
    }

    /// Width in bits of one value of this type (packed types count whole).
    pub fn bits(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::B8 | Ty::U8 | Ty::S8 | Ty::E4m3 | Ty::E5m2 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 | Ty::E4m3x2 | Ty::E5m2x2 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 | Ty::Tf32 => 32,
            Ty::U16x2 | Ty::S16x2 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
            Ty::B128 => 128,
        }
    }

    pub fn bytes(self) -> usize {
        (self.bits() as usize).div_ceil(8)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64 | Ty::S16x2)
    }

    pub fn is_float(self) -> bool {
        self.format().is_some()
    }

    /// The float format of a scalar float type, or of each half of a packed one.
    pub fn format(self) -> Option<Format> {
        Some(match self {
            Ty::F16 | Ty::F16x2 => softfloat::F16,
            Ty::Bf16 | Ty::Bf16x2 => softfloat::BF16,
            Ty::F32 => softfloat::F32,
            Ty::F64 => softfloat::F64,
            Ty::Tf32 => softfloat::TF32,
            Ty::E4m3 | Ty::E4m3x2 => softfloat::E4M3,
            Ty::E5m2 | Ty::E5m2x2 => softfloat::E5M2,
            _ => return None,
        })
    }

    pub fn is_packed(self) -> bool {
        matches!(
            self,
            Ty::F16x2 | Ty::Bf16x2 | Ty::E4m3x2 | Ty::E5m2x2 | Ty::U16x2 | Ty::S16x2
        )
    }
}

/// Mask of the low `bits` bits.
#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
#[inline]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// A state space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Generic,
    Global,
    Shared,
    Local,
    Param,
    Const,
}

impl Space {
    pub fn parse(word: &str) -> Option<Space> {
        Some(match word {
            "global" => Space::Global,
            "shared" | "shared::cta" | "shared::cluster" => Space::Shared,
            "local" => Space::Local,
            "param" | "param::entry" | "param::func" => Space::Param,
            "const" => Space::Const,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Param => "param",
            Space::Const => "const",
        }
    }
}

/// A special (read-only, per-thread) register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    Nwarpid,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    Clock64,
    GlobalTimer,
    Smid,
    Nsmid,
    Gridid,
    /// `%dynamic_smem_size`: the launch's dynamic shared memory.
    DynamicSmemSize,
    /// `%total_smem_size`: static and dynamic shared memory of the CTA.
    TotalSmemSize,
    /// `%aggr_smem_size`: that and the memory reserved for the system.
    AggrSmemSize,
    /// `%envregN`, `%pm*`: zero.
    Zero,
    /// `%cluster_ctaid`: the CTA's position in its cluster.
    ClusterCtaid(u8),
    /// `%cluster_nctaid`: the cluster's shape.
    ClusterNctaid(u8),
    /// `%cluster_ctarank`: the CTA's linear rank in its cluster.
    ClusterCtarank,
    /// `%cluster_nctarank`: CTAs per cluster.
    ClusterNctarank,
    /// `%clusterid`: the cluster's position in the grid of clusters.
    Clusterid(u8),
    /// `%nclusterid`: the grid of clusters.
    Nclusterid(u8),
    /// `%is_explicit_cluster`: whether the launch gave a cluster shape.
    IsExplicitCluster,
}

impl Special {
    pub fn parse(name: &str, component: Option<&str>) -> Option<Special> {
        let dim = match component {
            Some(".x") | None => 0,
            Some(".y") => 1,
            Some(".z") => 2,
            Some(_) => return None,
        };
        Some(match name {
            "%tid" => Special::Tid(dim),
            "%ntid" => Special::Ntid(dim),
            "%ctaid" => Special::Ctaid(dim),
            "%nctaid" => Special::Nctaid(dim),
            "%laneid" => Special::Laneid,
            "%warpid" => Special::Warpid,
            "%nwarpid" => Special::Nwarpid,
            "%lanemask_eq" => Special::LanemaskEq,
            "%lanemask_le" => Special::LanemaskLe,
            "%lanemask_lt" => Special::LanemaskLt,
            "%lanemask_ge" => Special::LanemaskGe,
            "%lanemask_gt" => Special::LanemaskGt,
            "%clock" | "%clock_hi" => Special::Clock,
            "%clock64" => Special::Clock64,
            "%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi" => Special::GlobalTimer,
            "%smid" => Special::Smid,
            "%nsmid" => Special::Nsmid,
            "%gridid" => Special::Gridid,
            "%dynamic_smem_size" => Special::DynamicSmemSize,
            "%total_smem_size" => Special::TotalSmemSize,
            "%aggr_smem_size" => Special::AggrSmemSize,
            "%cluster_ctaid" => Special::ClusterCtaid(dim),
            "%cluster_nctaid" => Special::ClusterNctaid(dim),
            "%cluster_ctarank" => Special::ClusterCtarank,
            "%cluster_nctarank" => Special::ClusterNctarank,
            "%clusterid" => Special::Clusterid(dim),
            "%nclusterid" => Special::Nclusterid(dim),
            "%is_explicit_cluster" => Special::IsExplicitCluster,
            _ if name.starts_with("%envreg") || name.starts_with("%pm") => Special::Zero,
            _ => return None,
        })
    }
}

/// A source operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Src {
    Reg(u32),
    /// `!%p`
    NotReg(u32),
    Imm(u64),
    Special(Special),
    Vector(Vec<Src>),
    Addr(Address),
    /// A branch target or `call` target (an instruction index or function index).
    Target(u32),
    Sink,
}

/// `[base + offset]`: a register base (or none) plus a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Address {
    pub base: Option<u32>,
    pub offset: i64,
}

/// A destination operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Dst {
    Reg(u32),
    Vector(Vec<Dst>),
    Sink,
}

impl Src {
    /// The elements of a vector operand, or the operand alone (none when absent): the
    /// fragment registers of matrix and tensor instructions.
    pub fn elements(src: Option<&Src>) -> Vec<Src> {
        match src {
            Some(Src::Vector(items)) => items.clone(),
            Some(other) => vec![other.clone()],
            None => Vec::new(),
        }
    }
}

impl Dst {
    /// The elements of a vector destination, or the destination alone (see [`Src::elements`]).
    pub fn elements(dst: Option<&Dst>) -> Vec<Dst> {
        match dst {
            Some(Dst::Vector(items)) => items.clone(),
            Some(other) => vec![other.clone()],
            None => Vec::new(),
        }
    }
}

/// Comparison operators of `setp`, `set`, `slct` ...
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl Cmp {
    pub fn parse(word: &str) -> Option<Cmp> {
        Some(match word {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            "lo" => Cmp::Lo,
            "ls" => Cmp::Ls,
            "hi" => Cmp::Hi,
            "hs" => Cmp::Hs,
            "equ" => Cmp::Equ,
            "neu" => Cmp::Neu,
            "ltu" => Cmp::Ltu,
            "leu" => Cmp::Leu,
            "gtu" => Cmp::Gtu,
            "geu" => Cmp::Geu,
            "num" => Cmp::Num,
            "nan" => Cmp::Nan,
            _ => return None,
        })
    }
}

/// `.and`, `.or`, `.xor` combining a comparison with a predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    pub fn parse(word: &str) -> Option<BoolOp> {
        Some(match word {
            "and" => BoolOp::And,
            "or" => BoolOp::Or,
            "xor" => BoolOp::Xor,
            _ => return None,
        })
    }

    pub fn apply(self, a: bool, b: bool) -> bool {
        match self {
            BoolOp::And => a && b,
            BoolOp::Or => a || b,
            BoolOp::Xor => a ^ b,
        }
    }
}

/// The qualifiers of one instruction, classified.
#[derive(Debug, Clone, Default)]
pub struct Quals {
    /// Every qualifier without its dot, in order.
    pub words: Vec<String>,
    /// The type qualifiers, in order.
    pub types: Vec<Ty>,
    pub rounding: Option<Rounding>,
    /// `.rni .rzi .rmi .rpi`
    pub int_rounding: Option<Rounding>,
    pub space: Option<Space>,
    pub vector: u32,
    /// Source operands of video instructions with an element selection
    /// (`%r1.b2`, `%r2.h1`: the selector without its dot) or a negation
    /// (`-%r3`): (source index, selector, negated).
    pub marks: Vec<(usize, Option<String>, bool)>,
}

impl Quals {
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>) -> Quals {
        let mut quals = Quals {
            vector: 1,
            ..Quals::default()
        };
        for word in words {
            let word = word.trim_start_matches('.');
            if let Some(ty) = Ty::parse(word) {
                quals.types.push(ty);
            }
            match word {
                "rn" => quals.rounding = Some(Rounding::Nearest),
                "rz" => quals.rounding = Some(Rounding::Zero),
                "rm" => quals.rounding = Some(Rounding::Down),
                "rp" => quals.rounding = Some(Rounding::Up),
                "rna" => quals.rounding = Some(Rounding::NearestAway),
                "rni" => quals.int_rounding = Some(Rounding::Nearest),
                "rzi" => quals.int_rounding = Some(Rounding::Zero),
                "rmi" => quals.int_rounding = Some(Rounding::Down),
                "rpi" => quals.int_rounding = Some(Rounding::Up),
                "v2" => quals.vector = 2,
                "v4" => quals.vector = 4,
                "v8" => quals.vector = 8,
                _ => {}
            }
            if quals.space.is_none() {
                quals.space = Space::parse(word);
            }
            quals.words.push(word.to_owned());
        }
        quals
    }

    pub fn has(&self, word: &str) -> bool {
        self.words.iter().any(|w| w == word)
    }

    /// The first type qualifier.
    pub fn ty(&self) -> Option<Ty> {
        self.types.first().copied()
    }
}

/// One pre-decoded instruction.
#[derive(Debug, Clone)]
pub struct Inst {
    pub op: crate::Op,
    /// `@%p` (register, negated).
    pub guard: Option<(u32, bool)>,
    pub dst: Vec<Dst>,
    pub src: Vec<Src>,
    /// Byte range of the whole statement.
    pub range: TextRange,
    /// The `ret`/`exit` added at the end of a body: not counted as a step.
    pub implicit: bool,
}

/// A declared register.
#[derive(Debug, Clone)]
pub struct RegInfo {
    pub name: String,
    pub ty: Ty,
    /// Index of the function that declares it (`usize::MAX`: the snippet body).
    pub function: usize,
    /// Declared in a nested `{ }` block (not reported at the end of a run:
    /// its name may repeat an outer register's).
    pub nested: bool,
}

impl RegInfo {
    pub fn bits(&self) -> u32 {
        self.ty.bits().min(64)
    }
}

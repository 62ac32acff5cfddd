//! Where NVIDIA's tools are installed.
//!
//! Each tool is looked for, in this order, in:
//! 1. the user's setting: a path to the tool itself, or a folder holding it (or its `bin/`);
//! 2. `$CUDA_HOME/bin`, then `$CUDA_PATH/bin`;
//! 3. every folder of `$PATH`;
//! 4. the default toolkit folder `/usr/local/cuda/bin`;
//! 5. Python environments (`$VIRTUAL_ENV`, `$CONDA_PREFIX`, the user's and the system's
//!    `site-packages`/`dist-packages`) that hold NVIDIA's PyPI wheels: `nvidia/cu13/bin`
//!    (CUDA 13 wheels) and `nvidia/cuda_nvcc/bin`, `nvidia/cuda_cuobjdump/bin`,
//!    `nvidia/cuda_nvdisasm/bin` (CUDA 12 wheels);
//! 6. the cache of this project's installer (`~/.cache/TOOL/VERSION/nvidia/cu13/bin`).
//!
//! The first executable file found wins. The environment is passed in ([`Search`]) so that the
//! search is a function of its inputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

/// One of the tools the compiler view uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    Ptxas,
    Cuobjdump,
    Nvdisasm,
}

impl ToolKind {
    pub const ALL: [ToolKind; 3] = [ToolKind::Ptxas, ToolKind::Cuobjdump, ToolKind::Nvdisasm];

    /// The executable's file name.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Ptxas => "ptxas",
            ToolKind::Cuobjdump => "cuobjdump",
            ToolKind::Nvdisasm => "nvdisasm",
        }
    }

    /// The folder a CUDA 12 wheel keeps it in (`nvidia/<folder>/bin`).
    fn cuda12_wheel_folder(self) -> &'static str {
        match self {
            ToolKind::Ptxas => "cuda_nvcc",
            ToolKind::Cuobjdump => "cuda_cuobjdump",
            ToolKind::Nvdisasm => "cuda_nvdisasm",
        }
    }
}

/// A tool that was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tool {
    pub kind: ToolKind,
    pub path: PathBuf,
    /// Where it was found: `setting`, `CUDA_HOME`, `CUDA_PATH`, `PATH`, `/usr/local/cuda`,
    /// `Python environment`, `installer cache`.
    pub source: String,
    /// The release it reports (`13.5.37` of "Cuda compilation tools, release 13.5, V13.5.37"),
    /// when asked for ([`Toolchain::with_versions`]) and the tool answered.
    pub version: Option<String>,
}

/// What [`discover`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Toolchain {
    pub ptxas: Option<Tool>,
    pub cuobjdump: Option<Tool>,
    pub nvdisasm: Option<Tool>,
}

impl Toolchain {
    pub fn get(&self, kind: ToolKind) -> Option<&Tool> {
        match kind {
            ToolKind::Ptxas => self.ptxas.as_ref(),
            ToolKind::Cuobjdump => self.cuobjdump.as_ref(),
            ToolKind::Nvdisasm => self.nvdisasm.as_ref(),
        }
    }

    fn slot(&mut self, kind: ToolKind) -> &mut Option<Tool> {
        match kind {
            ToolKind::Ptxas => &mut self.ptxas,
            ToolKind::Cuobjdump => &mut self.cuobjdump,
            ToolKind::Nvdisasm => &mut self.nvdisasm,
        }
    }

    /// Asks each tool found for its release (`TOOL --version`; one short process each).
    pub fn with_versions(mut self) -> Toolchain {
        for kind in ToolKind::ALL {
            if let Some(tool) = self.slot(kind).as_mut() {
                tool.version = version_of(&tool.path);
            }
        }
        self
    }

    /// One line per tool: `ptxas 13.5.37 (PATH): /usr/local/cuda/bin/ptxas` or `ptxas: not found`.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for kind in ToolKind::ALL {
            match self.get(kind) {
                Some(tool) => {
                    let version = tool
                        .version
                        .as_deref()
                        .map(|v| format!(" {v}"))
                        .unwrap_or_default();
                    out.push_str(&format!(
                        "{}{version} ({}): {}\n",
                        kind.name(),
                        tool.source,
                        tool.path.display()
                    ));
                }
                None => out.push_str(&format!("{}: not found\n", kind.name())),
            }
        }
        out
    }
}

/// The inputs of the search: a setting and a snapshot of the environment variables it reads.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The user's setting: the tool itself or a folder of tools (a toolkit root or its `bin/`).
    pub setting: Option<PathBuf>,
    /// `CUDA_HOME`, `CUDA_PATH`, `PATH`, `VIRTUAL_ENV`, `CONDA_PREFIX`, `HOME`, `XDG_CACHE_HOME`.
    pub env: BTreeMap<String, String>,
    /// Roots searched for `lib/python3.*/{site,dist}-packages` besides the environment's
    /// (`/usr`, `/usr/local`; tests pass their own).
    pub system_roots: Vec<PathBuf>,
    /// The default toolkit folder (`/usr/local/cuda`; tests pass their own or none).
    pub default_toolkit: Option<PathBuf>,
}

impl Search {
    /// The search of this process: its environment and the usual system folders.
    pub fn from_process(setting: Option<PathBuf>) -> Search {
        let names = [
            "CUDA_HOME",
            "CUDA_PATH",
            "PATH",
            "VIRTUAL_ENV",
            "CONDA_PREFIX",
            "HOME",
            "XDG_CACHE_HOME",
        ];
        let env = names
            .iter()
            .filter_map(|n| std::env::var(n).ok().map(|v| (n.to_string(), v)))
            .collect();
        Search {
            setting,
            env,
            system_roots: vec![PathBuf::from("/usr"), PathBuf::from("/usr/local")],
            default_toolkit: Some(PathBuf::from("/usr/local/cuda")),
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// Finds every tool (see the module's documentation for the order).
pub fn discover(search: &Search) -> Toolchain {
    let mut found = Toolchain::default();
    for kind in ToolKind::ALL {
        *found.slot(kind) = find(search, kind);
    }
    found
}

fn find(search: &Search, kind: ToolKind) -> Option<Tool> {
    let name = kind.name();
    let tool = |path: PathBuf, source: &str| Tool {
        kind,
        path,
        source: source.to_owned(),
        version: None,
    };
    if let Some(setting) = &search.setting {
        // A path to a file names the ptxas; its folder holds the other tools.
        let folder = if setting.is_file() {
            if kind == ToolKind::Ptxas {
                return is_executable(setting).then(|| tool(setting.clone(), "setting"));
            }
            setting.parent().map(Path::to_path_buf)
        } else {
            Some(setting.clone())
        };
        if let Some(folder) = folder {
            for dir in [folder.join("bin"), folder] {
                if let Some(path) = executable_in(&dir, name) {
                    return Some(tool(path, "setting"));
                }
            }
        }
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = search.var(var) {
            if let Some(path) = executable_in(&Path::new(root).join("bin"), name) {
                return Some(tool(path, var));
            }
        }
    }
    if let Some(path_var) = search.var("PATH") {
        for dir in std::env::split_paths(path_var) {
            if let Some(path) = executable_in(&dir, name) {
                return Some(tool(path, "PATH"));
            }
        }
    }
    if let Some(root) = &search.default_toolkit {
        if let Some(path) = executable_in(&root.join("bin"), name) {
            return Some(tool(path, &root.display().to_string()));
        }
    }
    for packages in python_package_dirs(search) {
        for sub in ["cu13", kind.cuda12_wheel_folder(), "cu12"] {
            let dir = packages.join("nvidia").join(sub).join("bin");
            if let Some(path) = executable_in(&dir, name) {
                return Some(tool(path, "Python environment"));
            }
        }
    }
    let cache = search
        .var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| search.var("HOME").map(|h| Path::new(h).join(".cache")));
    if let Some(cache) = cache {
        // ~/.cache/TOOL/VERSION/nvidia/cu13/bin/TOOL, newest version first.
        let mut versions = sorted_children(&cache.join(name));
        versions.reverse();
        for version in versions {
            let dir = version.join("nvidia").join("cu13").join("bin");
            if let Some(path) = executable_in(&dir, name) {
                return Some(tool(path, "installer cache"));
            }
        }
    }
    None
}

/// `site-packages`/`dist-packages` folders of the Python environments the search knows.
fn python_package_dirs(search: &Search) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(root) = search.var(var) {
            roots.push(PathBuf::from(root));
        }
    }
    if let Some(home) = search.var("HOME") {
        roots.push(Path::new(home).join(".local"));
    }
    roots.extend(search.system_roots.iter().cloned());
    let mut out = Vec::new();
    for root in roots {
        // Debian's own packages live in lib/python3/dist-packages.
        out.push(root.join("lib").join("python3").join("dist-packages"));
        for lib in sorted_children(&root.join("lib")) {
            let is_python = lib
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python3."));
            if is_python {
                out.push(lib.join("site-packages"));
                out.push(lib.join("dist-packages"));
            }
        }
    }
    out
}

fn sorted_children(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

fn executable_in(dir: &Path, name: &str) -> Option<PathBuf> {
    let path = dir.join(name);
    is_executable(&path).then_some(path)
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// The release a tool reports: `V13.5.37` of its `--version` text, without the `V`.
fn version_of(path: &Path) -> Option<String> {
    let output = Command::new(path).arg("--version").output().ok()?;
    parse_version(&String::from_utf8_lossy(&output.stdout))
}

/// `Cuda compilation tools, release 13.5, V13.5.37` → `13.5.37`.
pub(crate) fn parse_version(text: &str) -> Option<String> {
    let line = text.lines().rev().find(|l| l.contains("release"))?;
    let last = line.split([',', ' ']).rfind(|w| !w.is_empty())?;
    Some(last.trim_start_matches('V').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch_exe(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            path,
            "#!/bin/sh\necho 'Cuda compilation tools, release 13.5, V13.5.37'\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "ptx-toolchain-discover-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn search(env: &[(&str, &Path)]) -> Search {
        Search {
            setting: None,
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.display().to_string()))
                .collect(),
            system_roots: Vec::new(),
            default_toolkit: None,
        }
    }

    #[test]
    fn order_setting_cuda_home_path_python_cache() {
        let root = scratch("order");
        let in_setting = root.join("toolkit/bin/ptxas");
        let in_home = root.join("cuda/bin/ptxas");
        let in_path = root.join("path/ptxas");
        let in_venv = root.join("venv/lib/python3.12/site-packages/nvidia/cu13/bin/ptxas");
        let in_cuda12 =
            root.join("venv/lib/python3.12/site-packages/nvidia/cuda_nvdisasm/bin/nvdisasm");
        let in_cache = root.join("cache/cuobjdump/13.5.37/nvidia/cu13/bin/cuobjdump");
        for p in [
            &in_setting,
            &in_home,
            &in_path,
            &in_venv,
            &in_cuda12,
            &in_cache,
        ] {
            touch_exe(p);
        }
        let mut s = search(&[
            ("CUDA_HOME", &root.join("cuda")),
            ("PATH", &root.join("path")),
            ("VIRTUAL_ENV", &root.join("venv")),
            ("XDG_CACHE_HOME", &root.join("cache")),
        ]);
        s.setting = Some(root.join("toolkit"));
        let found = discover(&s);
        assert_eq!(found.ptxas.as_ref().unwrap().path, in_setting);
        assert_eq!(found.ptxas.as_ref().unwrap().source, "setting");
        assert_eq!(found.nvdisasm.as_ref().unwrap().path, in_cuda12);
        assert_eq!(found.cuobjdump.as_ref().unwrap().path, in_cache);
        assert_eq!(found.cuobjdump.as_ref().unwrap().source, "installer cache");
        s.setting = None;
        assert_eq!(discover(&s).ptxas.unwrap().source, "CUDA_HOME");
        s.env.remove("CUDA_HOME");
        assert_eq!(discover(&s).ptxas.unwrap().path, in_path);
        s.env.remove("PATH");
        let venv = discover(&s).ptxas.unwrap();
        assert_eq!(
            (venv.path, venv.source.as_str()),
            (in_venv, "Python environment")
        );
        s.env.remove("VIRTUAL_ENV");
        assert_eq!(discover(&s).ptxas, None);
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_setting_naming_the_file_and_versions() {
        let root = scratch("file");
        let ptxas = root.join("bin/ptxas");
        touch_exe(&ptxas);
        touch_exe(&root.join("bin/nvdisasm"));
        let mut s = search(&[]);
        s.setting = Some(ptxas.clone());
        let found = discover(&s).with_versions();
        assert_eq!(found.ptxas.as_ref().unwrap().path, ptxas);
        assert_eq!(
            found.ptxas.as_ref().unwrap().version.as_deref(),
            Some("13.5.37")
        );
        assert!(found.nvdisasm.is_some());
        let text = found.describe();
        assert!(text.contains("ptxas 13.5.37 (setting): "), "{text}");
        assert!(text.contains("cuobjdump: not found"), "{text}");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn versions() {
        let text = "nvdisasm: NVIDIA (R) CUDA disassembler\nCopyright (c) 2005-2026 NVIDIA Corporation\nBuilt on Fri\nCuda compilation tools, release 13.5, V13.5.37\n";
        assert_eq!(parse_version(text).as_deref(), Some("13.5.37"));
        assert_eq!(parse_version("nothing"), None);
    }
}

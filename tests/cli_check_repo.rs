//! End-to-end tests of `ptx-lsp check` on a whole repository: folder walks (ignore files,
//! hidden files, binary files, nested folders), unreadable paths, the report formats
//! (human, json, github, sarif) as golden outputs, `--error-on`, `--select`/`--ignore`, and
//! `ptx-lsp.toml`.
//!
//! The fixture repository is made in a temporary folder by each test: git cannot hold a
//! symbolic link loop, a dangling link or an unreadable file.

mod cli_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cli_common::{stderr, stdout};
use expect_test::{expect, Expect};

/// A valid module.
const VALID: &str =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry ok()\n{\n\tret;\n}\n";

/// A module with two errors.
const INVALID: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<4>;\n\tld.param.u64 \t%rd1, [out];\n\tad.s32 \t%r1, %r2, %r3;\n\tld.global.v4.u32 \t{%r1, %r2}, [%rd1];\n\tret;\n}\n";

/// A module whose only diagnostic is a warning (a qualifier ptxas ignores).
const WARNING_ONLY: &str = ".version 8.7\n.target sm_100a\n.address_size 64\n\n.visible .entry w()\n{\n\t.reg .b32 \t%r<4>;\n\tadd.s32.acc::f32 \t%r1, %r2, %r3;\n\tret;\n}\n";

/// A module without `.target` (an error in a deep folder).
const NO_TARGET: &str = ".version 8.0\n.address_size 64\n.visible .entry n()\n{\n\tret;\n}\n";

/// A temporary folder, removed at the end of the test.
struct TempRepo {
    root: PathBuf,
}

impl TempRepo {
    fn new(name: &str) -> TempRepo {
        let root =
            std::env::temp_dir().join(format!("ptx-lsp-check-repo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("a temporary folder");
        TempRepo { root }
    }

    fn write(&self, path: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        std::fs::write(path, contents).expect("a file");
        self
    }

    #[cfg(unix)]
    fn symlink(&self, target: &str, link: &str) -> &Self {
        let link = self.root.join(link);
        std::fs::create_dir_all(link.parent().expect("a parent")).expect("folders");
        std::os::unix::fs::symlink(target, link).expect("a symbolic link");
        self
    }

    /// Runs `ptx-lsp ARGS...` in the fixture's root.
    fn check(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
            .arg("check")
            .args(args)
            .current_dir(&self.root)
            .output()
            .expect("the ptx-lsp binary runs")
    }
}

impl Drop for TempRepo {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // An unreadable file left by a test must not stop the clean-up.
            for entry in walk(&self.root) {
                let _ = std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o755));
            }
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Every path below `root` that is not a symbolic link.
fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        if let Ok(entries) = std::fs::read_dir(&out[i]) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| !t.is_symlink()) {
                    out.push(entry.path());
                }
            }
        }
        i += 1;
    }
    out
}

/// The fixture repository: checked files in nested folders, and files the walk must pass
/// over (ignored, hidden, binary, of another kind).
fn repository(name: &str) -> TempRepo {
    let repo = TempRepo::new(name);
    let kernel_cu = std::fs::read(cli_common::root().join("tests/fixtures/cuda/kernel.cu"))
        .expect("the CUDA fixture");
    repo.write("kernels/ok.ptx", VALID)
        .write("kernels/bad.ptx", INVALID)
        .write("kernels/odd,name: 100%.ptx", WARNING_ONLY)
        .write("kernels/nested/deep/no_target.ptx", NO_TARGET)
        .write("src/kernel.cu", kernel_cu)
        .write("src/plain.h", "#pragma once\nint twice(int x);\n")
        .write("README.txt", "not a source file\n")
        // Ignored by .gitignore (a folder) and .ignore (a pattern): never read.
        .write(".gitignore", "build/\n")
        .write(".ignore", "*.tmp.ptx\n")
        .write("build/generated.ptx", INVALID)
        .write("kernels/scratch.tmp.ptx", INVALID)
        // Hidden files and folders: never read.
        .write(".cache/old.ptx", INVALID)
        .write("kernels/.backup.ptx", INVALID)
        // Binary content with a PTX name (a NUL byte): not a file to check.
        .write(
            "kernels/blob.ptx",
            b"\x7fELF\x02\x01\x01\x00\x00\x00garbage".as_slice(),
        );
    repo
}

fn shown(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        stdout(output),
        stderr(output)
    )
}

fn golden(args: &[&str], expect: Expect) {
    let name = args.join("-").replace(['.', ' '], "");
    let repo = repository(&name);
    expect.assert_eq(&shown(&repo.check(args)));
}

#[test]
fn human_report_of_a_repository() {
    golden(
        &["."],
        expect![[r#"
            exit Some(1)
            --- stdout
            error[unknown-opcode]: unknown instruction `ad`; did you mean `add`?
              --> kernels/bad.ptx:10:2
               |
            10 | 	ad.s32 	%r1, %r2, %r3;
               | 	^^
               = see: PTX ISA section 9.7
               = help: Change to `add`

            error[vector-length]: `ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers
              --> kernels/bad.ptx:11:20
               |
            11 | 	ld.global.v4.u32 	{%r1, %r2}, [%rd1];
               | 	                 	^^^^^^^^^^
               = see: PTX ISA section 9.7.9.8
               = help: Use 4 registers

            error[missing-target]: the file has no `.target` directive; ptxas needs one after `.version` (e.g. `.target sm_90`)
             --> kernels/nested/deep/no_target.ptx:1:1
              |
            1 | .version 8.0
              | ^^^^^^^^^^^^
              = see: PTX ISA section 11.1.2

            warning[ignored-qualifier]: `.acc::f32` means nothing to `add`; ptxas ignores it
             --> kernels/odd,name: 100%.ptx:8:9
              |
            8 | 	add.s32.acc::f32 	%r1, %r2, %r3;
              | 	       ^^^^^^^^^
              = see: PTX ISA section 9.7.1.1

            error[undeclared-name]: `p` is not declared: no label, variable, register or function has this name
              --> src/kernel.cu:11:58
               |
            11 |   asm volatile("mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;" :: "r"(0u), "r"(phase));
               |                                                          ^
               = see: PTX ISA section 4.4

            error[asm-constraint-width]: `%0` is a .b32 register; operand 1 of `ld.global.u64` needs an integer or bit-size register of at least 64 bits — operand %0 is `"=r"(x)`: output, 32-bit register (`.b32`)
              --> src/kernel.cu:15:31
               |
            15 |   asm volatile("ld.global.u64 %0, [%1];" : "=r"(x) : "l"(p));
               |                               ^^
               = note: the constraint at src/kernel.cu:15:44
               = see: PTX ISA section 9.7.9.8

            error[asm-operand-number]: `%2` names no operand: the statement has 1 operand (%0 to %0)
              --> src/kernel.cu:24:24
               |
            24 |   asm("add.f32 %0, %0, %2;" : "+f"(f));
               |                        ^^

            6 errors, 1 warning in 6 files
            --- stderr
        "#]],
    );
}

#[test]
fn json_report_of_a_repository() {
    golden(
        &["--format", "json", "."],
        expect![[r#"
            exit Some(1)
            --- stdout
            [
              {
                "file": "kernels/bad.ptx",
                "line": 10,
                "column": 2,
                "end_line": 10,
                "end_column": 4,
                "severity": "error",
                "code": "unknown-opcode",
                "message": "unknown instruction `ad`; did you mean `add`?"
              },
              {
                "file": "kernels/bad.ptx",
                "line": 11,
                "column": 20,
                "end_line": 11,
                "end_column": 30,
                "severity": "error",
                "code": "vector-length",
                "message": "`ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers"
              },
              {
                "file": "kernels/nested/deep/no_target.ptx",
                "line": 1,
                "column": 1,
                "end_line": 1,
                "end_column": 13,
                "severity": "error",
                "code": "missing-target",
                "message": "the file has no `.target` directive; ptxas needs one after `.version` (e.g. `.target sm_90`)"
              },
              {
                "file": "kernels/odd,name: 100%.ptx",
                "line": 8,
                "column": 9,
                "end_line": 8,
                "end_column": 18,
                "severity": "warning",
                "code": "ignored-qualifier",
                "message": "`.acc::f32` means nothing to `add`; ptxas ignores it"
              },
              {
                "file": "src/kernel.cu",
                "line": 11,
                "column": 58,
                "end_line": 11,
                "end_column": 59,
                "severity": "error",
                "code": "undeclared-name",
                "message": "`p` is not declared: no label, variable, register or function has this name"
              },
              {
                "file": "src/kernel.cu",
                "line": 15,
                "column": 31,
                "end_line": 15,
                "end_column": 33,
                "severity": "error",
                "code": "asm-constraint-width",
                "message": "`%0` is a .b32 register; operand 1 of `ld.global.u64` needs an integer or bit-size register of at least 64 bits — operand %0 is `\"=r\"(x)`: output, 32-bit register (`.b32`)"
              },
              {
                "file": "src/kernel.cu",
                "line": 24,
                "column": 24,
                "end_line": 24,
                "end_column": 26,
                "severity": "error",
                "code": "asm-operand-number",
                "message": "`%2` names no operand: the statement has 1 operand (%0 to %0)"
              }
            ]
            --- stderr
        "#]],
    );
}

#[test]
fn github_report_of_a_repository() {
    golden(
        &["--format", "github", "."],
        expect![[r#"
            exit Some(1)
            --- stdout
            ::error file=kernels/bad.ptx,line=10,col=2,endLine=10,endColumn=4,title=ptx-lsp (unknown-opcode)::unknown instruction `ad`; did you mean `add`?
            ::error file=kernels/bad.ptx,line=11,col=20,endLine=11,endColumn=30,title=ptx-lsp (vector-length)::`ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers
            ::error file=kernels/nested/deep/no_target.ptx,line=1,col=1,endLine=1,endColumn=13,title=ptx-lsp (missing-target)::the file has no `.target` directive; ptxas needs one after `.version` (e.g. `.target sm_90`)
            ::warning file=kernels/odd%2Cname%3A 100%25.ptx,line=8,col=9,endLine=8,endColumn=18,title=ptx-lsp (ignored-qualifier)::`.acc::f32` means nothing to `add`; ptxas ignores it
            ::error file=src/kernel.cu,line=11,col=58,endLine=11,endColumn=59,title=ptx-lsp (undeclared-name)::`p` is not declared: no label, variable, register or function has this name
            ::error file=src/kernel.cu,line=15,col=31,endLine=15,endColumn=33,title=ptx-lsp (asm-constraint-width)::`%250` is a .b32 register; operand 1 of `ld.global.u64` needs an integer or bit-size register of at least 64 bits — operand %250 is `"=r"(x)`: output, 32-bit register (`.b32`)
            ::error file=src/kernel.cu,line=24,col=24,endLine=24,endColumn=26,title=ptx-lsp (asm-operand-number)::`%252` names no operand: the statement has 1 operand (%250 to %250)
            --- stderr
        "#]],
    );
}

#[test]
fn sarif_report_of_a_repository() {
    golden(
        &["--format", "sarif", "."],
        expect![[r#"
            exit Some(1)
            --- stdout
            {
              "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
              "runs": [
                {
                  "columnKind": "unicodeCodePoints",
                  "results": [
                    {
                      "level": "error",
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "kernels/bad.ptx",
                              "uriBaseId": "%SRCROOT%"
                            },
                            "region": {
                              "endColumn": 4,
                              "endLine": 10,
                              "startColumn": 2,
                              "startLine": 10
                            }
                          }
                        }
                      ],
                      "message": {
                        "text": "unknown instruction `ad`; did you mean `add`?"
                      },
                      "ruleId": "unknown-opcode",
                      "ruleIndex": 5
                    },
                    {
                      "level": "error",
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "kernels/bad.ptx",
                              "uriBaseId": "%SRCROOT%"
                            },
                            "region": {
                              "endColumn": 30,
                              "endLine": 11,
                              "startColumn": 20,
                              "startLine": 11
                            }
                          }
                        }
                      ],
                      "message": {
                        "text": "`ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers"
                      },
                      "ruleId": "vector-length",
                      "ruleIndex": 6
                    },
                    {
                      "level": "error",
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "kernels/nested/deep/no_target.ptx",
                              "uriBaseId": "%SRCROOT%"
                            },
                            "region": {
                              "endColumn": 13,
                              "endLine": 1,
                              "startColumn": 1,
                              "startLine": 1
                            }
                          }
                        }
                      ],
                      "message": {
                        "text": "the file has no `.target` directive; ptxas needs one after `.version` (e.g. `.target sm_90`)"
                      },
                      "ruleId": "missing-target",
                      "ruleIndex": 3
                    },
                    {
                      "level": "warning",
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "kernels/odd%2Cname%3A%20100%25.ptx",
                              "uriBaseId": "%SRCROOT%"
                            },
                            "region": {
                              "endColumn": 18,
                              "endLine": 8,
                              "startColumn": 9,
                              "startLine": 8
                            }
                          }
                        }
                      ],
                      "message": {
                        "text": "`.acc::f32` means nothing to `add`; ptxas ignores it"
                      },
                      "ruleId": "ignored-qualifier",
                      "ruleIndex": 2
                    },
                    {
                      "level": "error",
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "src/kernel.cu",
                              "uriBaseId": "%SRCROOT%"
                            },
                            "region": {
                              "endColumn": 59,
                              "endLine": 11,
                              "startColumn": 58,
                              "startLine": 11
                            }
                          }
                        }
                      ],
                      "message": {
                        "text": "`p` is not declared: no label, variable, register or function has this name"
                      },
                      "ruleId": "undeclared-name",
                      "ruleIndex": 4
                    },
                    {
                      "level": "error",
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "src/kernel.cu",
                              "uriBaseId": "%SRCROOT%"
                            },
                            "region": {
                              "endColumn": 33,
                              "endLine": 15,
                              "startColumn": 31,
                              "startLine": 15
                            }
                          }
                        }
                      ],
                      "message": {
                        "text": "`%0` is a .b32 register; operand 1 of `ld.global.u64` needs an integer or bit-size register of at least 64 bits — operand %0 is `\"=r\"(x)`: output, 32-bit register (`.b32`)"
                      },
                      "ruleId": "asm-constraint-width",
                      "ruleIndex": 0
                    },
                    {
                      "level": "error",
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "src/kernel.cu",
                              "uriBaseId": "%SRCROOT%"
                            },
                            "region": {
                              "endColumn": 26,
                              "endLine": 24,
                              "startColumn": 24,
                              "startLine": 24
                            }
                          }
                        }
                      ],
                      "message": {
                        "text": "`%2` names no operand: the statement has 1 operand (%0 to %0)"
                      },
                      "ruleId": "asm-operand-number",
                      "ruleIndex": 1
                    }
                  ],
                  "tool": {
                    "driver": {
                      "name": "ptx-lsp",
                      "rules": [
                        {
                          "id": "asm-constraint-width",
                          "shortDescription": {
                            "text": "an operand's constraint binds a register of another width than the instruction needs"
                          }
                        },
                        {
                          "id": "asm-operand-number",
                          "shortDescription": {
                            "text": "a `%N` or `%[name]` in an asm template that names no operand"
                          }
                        },
                        {
                          "id": "ignored-qualifier",
                          "shortDescription": {
                            "text": "a qualifier the instruction has no use for, which ptxas drops without a word"
                          }
                        },
                        {
                          "id": "missing-target",
                          "shortDescription": {
                            "text": "no `.target` directive"
                          }
                        },
                        {
                          "id": "undeclared-name",
                          "shortDescription": {
                            "text": "a label, variable or function that is not declared"
                          }
                        },
                        {
                          "id": "unknown-opcode",
                          "shortDescription": {
                            "text": "no instruction has this name"
                          }
                        },
                        {
                          "id": "vector-length",
                          "shortDescription": {
                            "text": "a register vector of the wrong length"
                          }
                        }
                      ],
                      "version": "0.1.0"
                    }
                  }
                }
              ],
              "version": "2.1.0"
            }
            --- stderr
        "#]],
    );
}

#[test]
fn sarif_report_follows_the_schema() {
    let repo = repository("sarif-schema");
    let output = repo.check(&["--format", "sarif", "."]);
    assert_eq!(output.status.code(), Some(1), "{}", shown(&output));
    let log: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            cli_common::root().join("tests/fixtures/sarif/sarif-schema-2.1.0.json"),
        )
        .expect("the committed schema"),
    )
    .expect("the schema is JSON");
    let validator = jsonschema::draft4::new(&schema).expect("a valid draft-04 schema");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema has teeth: a result without its message is rejected.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .expect("a result")
        .remove("message");
    assert!(!validator.is_valid(&broken));
    // Every result's rule is in the driver's list, at its index.
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    for result in run["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("an index") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
}

#[test]
fn a_clean_repository_exits_0() {
    let repo = TempRepo::new("clean");
    repo.write("a/ok.ptx", VALID)
        .write("b/plain.cuh", "int x;\n");
    let output = repo.check(&["."]);
    expect![[r#"
        exit Some(0)
        --- stdout
        0 errors, 0 warnings in 2 files
        --- stderr
    "#]]
    .assert_eq(&shown(&output));
}

#[test]
fn a_folder_without_files_to_check() {
    let repo = TempRepo::new("empty");
    repo.write("notes.md", "# notes\n");
    expect![[r#"
        exit Some(0)
        --- stdout
        0 errors, 0 warnings in 0 files
        --- stderr
        warning: no PTX or CUDA/C++ file to check in .
    "#]]
    .assert_eq(&shown(&repo.check(&["."])));
}

#[cfg(unix)]
#[test]
fn unreadable_paths_exit_2_and_are_not_counted() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TempRepo::new("unreadable");
    repo.write("a/ok.ptx", VALID)
        .write("b/bad.ptx", INVALID)
        // A folder that links to its parent: walking it would never end.
        .symlink("..", "a/loop")
        // A link to nothing, named like a file to check.
        .symlink("missing.ptx", "c/gone.ptx")
        // A link to nothing with a name no checked file has: nothing was to be read.
        .symlink("missing.bin", "c/gone.bin");
    let output = repo.check(&["."]);
    expect![[r#"
        exit Some(2)
        --- stdout
        error[unknown-opcode]: unknown instruction `ad`; did you mean `add`?
          --> b/bad.ptx:10:2
           |
        10 | 	ad.s32 	%r1, %r2, %r3;
           | 	^^
           = see: PTX ISA section 9.7
           = help: Change to `add`

        error[vector-length]: `ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers
          --> b/bad.ptx:11:20
           |
        11 | 	ld.global.v4.u32 	{%r1, %r2}, [%rd1];
           | 	                 	^^^^^^^^^^
           = see: PTX ISA section 9.7.9.8
           = help: Use 4 registers

        2 errors, 0 warnings in 2 files; 2 paths could not be read
        --- stderr
        error: cannot read a/loop: a symbolic link loop (it leads back to .)
        error: cannot read c/gone.ptx: a symbolic link to nothing (missing.ptx)
    "#]]
    .assert_eq(&shown(&output));

    // A file without read permission. Root reads it all the same: there the file is
    // replaced by another kind of unreadable file, a link to nothing, so that the same
    // outcome is asserted either way.
    repo.write("d/secret.ptx", VALID);
    let secret = repo.root.join("d/secret.ptx");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let reason = if std::fs::read(&secret).is_ok() {
        std::fs::remove_file(&secret).expect("remove");
        repo.symlink("nowhere.ptx", "d/secret.ptx");
        "a symbolic link to nothing (nowhere.ptx)"
    } else {
        "Permission denied (os error 13)"
    };
    for args in [["d"], ["d/secret.ptx"]] {
        let output = repo.check(&args);
        assert_eq!(output.status.code(), Some(2), "{}", shown(&output));
        assert_eq!(
            stdout(&output),
            "0 errors, 0 warnings in 0 files; 1 path could not be read\n"
        );
        let message = stderr(&output);
        assert!(
            message.starts_with("error: cannot read d/secret.ptx: ")
                && (args[0] == "d/secret.ptx" || message.contains(reason)),
            "{message}"
        );
    }
}

#[test]
fn settings_apply_below_their_folder() {
    let repo = TempRepo::new("settings-target");
    let blackwell =
        std::fs::read(cli_common::root().join("tests/corpus/nvcc/blackwell_asm_sm_100a.ptx"))
            .expect("a corpus file");
    repo.write("ptx-lsp.toml", "target = \"sm_90a\"\n")
        .write("a/b/c/blackwell.ptx", &blackwell);
    let output = repo.check(&["--format", "json", "."]);
    assert_eq!(output.status.code(), Some(1), "{}", shown(&output));
    assert!(
        stdout(&output).contains("\"unsupported-target\""),
        "{}",
        shown(&output)
    );
    // Named from inside the folder, the file finds the same settings.
    let output = Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
        .args(["check", "blackwell.ptx"])
        .current_dir(repo.root.join("a/b/c"))
        .output()
        .expect("the ptx-lsp binary runs");
    assert_eq!(output.status.code(), Some(1), "{}", shown(&output));
    // The command line's target wins.
    let output = repo.check(&["--target", "sm_100a", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
}

#[test]
fn named_files_and_missing_paths() {
    let repo = repository("named");
    // A named file is checked even where .gitignore, .ignore or its hidden name would skip
    // it in a walk; a missing path is an error that counts no file.
    let output = repo.check(&[
        "build/generated.ptx",
        "kernels/.backup.ptx",
        "no/such/file.ptx",
        "no/such/folder",
    ]);
    expect![[r#"
        exit Some(2)
        --- stdout
        error[unknown-opcode]: unknown instruction `ad`; did you mean `add`?
          --> build/generated.ptx:10:2
           |
        10 | 	ad.s32 	%r1, %r2, %r3;
           | 	^^
           = see: PTX ISA section 9.7
           = help: Change to `add`

        error[vector-length]: `ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers
          --> build/generated.ptx:11:20
           |
        11 | 	ld.global.v4.u32 	{%r1, %r2}, [%rd1];
           | 	                 	^^^^^^^^^^
           = see: PTX ISA section 9.7.9.8
           = help: Use 4 registers

        error[unknown-opcode]: unknown instruction `ad`; did you mean `add`?
          --> kernels/.backup.ptx:10:2
           |
        10 | 	ad.s32 	%r1, %r2, %r3;
           | 	^^
           = see: PTX ISA section 9.7
           = help: Change to `add`

        error[vector-length]: `ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers
          --> kernels/.backup.ptx:11:20
           |
        11 | 	ld.global.v4.u32 	{%r1, %r2}, [%rd1];
           | 	                 	^^^^^^^^^^
           = see: PTX ISA section 9.7.9.8
           = help: Use 4 registers

        4 errors, 0 warnings in 2 files; 2 paths could not be read
        --- stderr
        error: cannot read no/such/file.ptx: No such file or directory (os error 2)
        error: cannot read no/such/folder: No such file or directory (os error 2)
    "#]]
    .assert_eq(&shown(&output));
}

#[test]
fn error_on_warning() {
    let repo = TempRepo::new("error-on");
    repo.write("w.ptx", WARNING_ONLY);
    assert_eq!(repo.check(&["w.ptx"]).status.code(), Some(0));
    assert_eq!(
        repo.check(&["--error-on", "warning", "w.ptx"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        repo.check(&["--error-on", "error", "w.ptx"]).status.code(),
        Some(0)
    );
}

#[test]
fn select_and_ignore_rule_codes() {
    let repo = repository("select");
    let codes = |args: &[&str]| -> (Option<i32>, Vec<String>) {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        all.push(".");
        let output = repo.check(&all);
        let json: serde_json::Value =
            serde_json::from_str(&stdout(&output)).unwrap_or(serde_json::Value::Null);
        let mut codes: Vec<String> = json
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|d| d["code"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default();
        codes.dedup();
        (output.status.code(), codes)
    };
    expect![[r#"
        [
            (
                Some(
                    1,
                ),
                [
                    "unknown-opcode",
                    "vector-length",
                    "missing-target",
                    "ignored-qualifier",
                    "undeclared-name",
                    "asm-constraint-width",
                    "asm-operand-number",
                ],
            ),
            (
                Some(
                    1,
                ),
                [
                    "unknown-opcode",
                    "ignored-qualifier",
                ],
            ),
            (
                Some(
                    0,
                ),
                [
                    "ignored-qualifier",
                ],
            ),
            (
                Some(
                    1,
                ),
                [
                    "ignored-qualifier",
                    "undeclared-name",
                    "asm-constraint-width",
                    "asm-operand-number",
                ],
            ),
            (
                Some(
                    0,
                ),
                [],
            ),
        ]
    "#]]
    .assert_debug_eq(&[
        codes(&[]),
        codes(&["--select", "unknown-opcode,ignored-qualifier"]),
        codes(&["--select", "ignored-qualifier"]),
        codes(&[
            "--ignore",
            "unknown-opcode",
            "--ignore",
            "vector-length,missing-target",
        ]),
        codes(&["--select", "unknown-opcode", "--ignore", "unknown-opcode"]),
    ]);
    let output = repo.check(&["--select", "no-such-rule", "."]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: `no-such-rule` is not a rule code (`ptx-lsp check --list-rules` lists them)\n"
    );
}

#[test]
fn list_rules() {
    let output = cli_common::ptx_lsp(&["check", "--list-rules"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let codes: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert!(codes.contains(&"unknown-opcode"), "{text}");
    assert!(codes.contains(&"asm-constraint-width"), "{text}");
    assert!(codes.len() > 30, "{text}");
}

#[test]
fn settings_file() {
    let repo = repository("settings");
    repo.write(
        "ptx-lsp.toml",
        "# the repository's settings\n\
         target = \"sm_80\"\n\
         disabled = [\"missing-target\"]\n\
         exclude = [\"deep/\"]\n\
         [extensions]\n\
         ptx = [\"ptxasm\"]\n",
    )
    .write("kernels/extra.ptxasm", INVALID)
    // A nearer settings file applies below its folder.
    .write("src/ptx-lsp.toml", "include = [\"*.cuh\"]\n")
    .write(
        "src/included.cuh",
        "__device__ void f() { asm(\"bad.op;\"); }\n",
    );
    let output = repo.check(&["--format", "json", "."]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    let found: Vec<String> = json
        .as_array()
        .expect("an array")
        .iter()
        .map(|d| {
            format!(
                "{}:{} {}",
                d["file"].as_str().unwrap_or(""),
                d["line"],
                d["code"]
            )
        })
        .collect();
    expect![[r#"
        (
            Some(
                1,
            ),
            [
                "kernels/bad.ptx:10 \"unknown-opcode\"",
                "kernels/bad.ptx:11 \"vector-length\"",
                "kernels/extra.ptxasm:10 \"unknown-opcode\"",
                "kernels/extra.ptxasm:11 \"vector-length\"",
                "kernels/odd,name: 100%.ptx:8 \"ignored-qualifier\"",
                "src/included.cuh:1 \"unknown-opcode\"",
            ],
        )
    "#]]
    .assert_debug_eq(&(output.status.code(), found));

    // `--force-exclude` applies `exclude` to named files too; without it they are checked.
    let named = "kernels/nested/deep/no_target.ptx";
    assert_eq!(
        stdout(&repo.check(&[named])),
        "0 errors, 0 warnings in 1 file\n"
    );
    assert_eq!(
        stdout(&repo.check(&["--force-exclude", named])),
        "0 errors, 0 warnings in 0 files\n"
    );
    // The command line's target wins over the file's.
    let output = repo.check(&["--target", "sm_90", "--format", "json", "kernels/ok.ptx"]);
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));

    // A malformed settings file stops the check with its location.
    repo.write(
        "ptx-lsp.toml",
        "target = \"sm_80\"\ndisabled = [\"nonsense\"]\n",
    );
    let output = repo.check(&["."]);
    assert_eq!(output.status.code(), Some(2), "{}", shown(&output));
    let message = stderr(&output);
    assert!(
        message.contains("ptx-lsp.toml:2:13: `nonsense` is not a rule code"),
        "{message}"
    );
}

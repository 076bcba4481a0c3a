//! Finds what some tests need that a checkout does not hold: the MCP spec texts (the project
//! never holds a copy: the folder TASKCHECK_SPEC_DIR names, or `../shared/spec` beside the
//! checkout) and the packages scripts/package-*.sh build into target/packages/. Where one is
//! absent the tests that need it are ignored and say why; with TASKCHECK_REQUIRE_SPEC or
//! TASKCHECK_REQUIRE_PACKAGES set (CI), its absence fails the build instead, so CI never skips
//! them.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(spec_texts)");
    println!("cargo::rerun-if-env-changed=TASKCHECK_SPEC_DIR");
    println!("cargo::rerun-if-env-changed=TASKCHECK_REQUIRE_SPEC");
    let dir = std::env::var_os("TASKCHECK_SPEC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
                .join("../../shared/spec")
        });
    let found = dir.join("2025-11-25/schema.json").is_file();
    if !found && std::env::var_os("TASKCHECK_REQUIRE_SPEC").is_some() {
        panic!(
            "TASKCHECK_REQUIRE_SPEC is set but the MCP spec texts are not at {}",
            dir.display()
        );
    }
    if found {
        println!("cargo::rustc-cfg=spec_texts");
    }
    println!("cargo::rustc-env=TASKCHECK_SPEC_DIR={}", dir.display());
    packages();
}

/// `cfg(wheel_built)` and `cfg(npm_built)`: the packages in target/packages/.
fn packages() {
    println!("cargo::rustc-check-cfg=cfg(wheel_built)");
    println!("cargo::rustc-check-cfg=cfg(npm_built)");
    println!("cargo::rerun-if-env-changed=TASKCHECK_REQUIRE_PACKAGES");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("../target/packages");
    if dir.is_dir() {
        println!("cargo::rerun-if-changed={}", dir.display());
    }
    let names: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let required = std::env::var_os("TASKCHECK_REQUIRE_PACKAGES").is_some();
    for (cfg, prefix, suffix, script) in [
        (
            "wheel_built",
            "mcp_taskcheck-",
            ".whl",
            "scripts/package-wheel.sh",
        ),
        (
            "npm_built",
            "mcp-taskcheck-",
            ".tgz",
            "scripts/package-npm.sh",
        ),
    ] {
        if names
            .iter()
            .any(|n| n.starts_with(prefix) && n.ends_with(suffix))
        {
            println!("cargo::rustc-cfg={cfg}");
        } else if required {
            panic!("TASKCHECK_REQUIRE_PACKAGES is set but {} holds no {prefix}*{suffix} ({script} builds it)", dir.display());
        }
    }
}

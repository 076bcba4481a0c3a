//! Finds the MCP spec texts some tests read (the project never holds a copy): the folder
//! TASKCHECK_SPEC_DIR names, or `../shared/spec` beside the checkout. Where they are absent
//! those tests are ignored and say why; with TASKCHECK_REQUIRE_SPEC set (CI), their absence
//! fails the build instead, so CI never skips them.

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
}

//! The `[patch.crates-io]` applies: the one `tokio` in this workspace's
//! graph is rt's facade (`compat/tokio`), and no registry tokio is in it.
//! cargo only warns when a patch does not apply (a version requirement
//! above the facade's, a feature it lacks, a lock file pinning tokio), so
//! this is checked here, with cargo's own answer.

use std::path::Path;
use std::process::Command;

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&cargo)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("running {cargo} {args:?}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{cargo} {args:?} failed (two tokio packages make `-i tokio` ambiguous):\n{stdout}\n{stderr}"
    );
    stdout
}

#[test]
fn the_only_tokio_is_the_facade() {
    // Every edge kind and every target: a registry tokio anywhere would
    // make `-i tokio` ambiguous and cargo fail.
    let tree = cargo(&[
        "tree", "--locked", "-i", "tokio", "-e", "all", "--target", "all", "--depth", "0",
    ]);
    let facade = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tokio")
        .canonicalize()
        .unwrap();
    let first = tree.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!("tokio v1.99.0 ({})", facade.display()),
        "cargo tree -i tokio:\n{tree}"
    );
}

#[test]
fn the_lock_file_has_no_registry_tokio() {
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    for package in lock.split("[[package]]") {
        if package.contains("\nname = \"tokio\"\n") {
            assert!(
                !package.contains("source = "),
                "Cargo.lock pins a registry tokio:\n{package}"
            );
        }
    }
}

/// A facade-only item, at compile time: real tokio has no `__rt`.
#[test]
fn the_facade_is_compiled_in() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let flavor = rt.block_on(async { tokio::__rt::runtime::Handle::current().runtime_flavor() });
    assert_eq!(flavor, tokio::runtime::RuntimeFlavor::CurrentThread);
}

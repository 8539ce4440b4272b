//! RULES.md §15: the shipped rules files load and equal their presets; single flags override.

use engine::rules::{FireDemonOrthogonal, Rules};
use std::path::PathBuf;

fn config(name: &str) -> String {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "configs", "rules", name].iter().collect();
    p.to_string_lossy().into_owned()
}

#[test]
fn rules_15_shipped_rules_files_equal_their_presets() {
    assert_eq!(Rules::load(&config("standard.toml")).unwrap(), Rules::standard());
    assert_eq!(Rules::load(&config("house.toml")).unwrap(), Rules::house());
    assert_eq!(Rules::load(&config("hachu.toml")).unwrap(), Rules::hachu());
}

#[test]
fn rules_15_a_rules_file_overrides_one_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let f = dir.join("vertical.toml");
    std::fs::write(&f, "preset = \"standard\"\nfire_demon_orthogonal = \"vertical\"\n").unwrap();
    let r = Rules::load(f.to_str().unwrap()).unwrap();
    assert_eq!(r, Rules { fire_demon_orthogonal: FireDemonOrthogonal::Vertical, ..Rules::standard() });
    std::fs::write(&f, "preset = \"standard\"\nply_cap = \"many\"\n").unwrap();
    let e = Rules::load(f.to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("ply_cap") || e.contains("integer"), "{e}");
    assert!(!e.contains('\n'));
    assert!(Rules::load("/nonexistent/rules.toml").unwrap_err().to_string().contains("cannot read"));
}
